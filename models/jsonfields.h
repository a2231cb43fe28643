#pragma once

// Optional members of JSON objects (and the strings of JSON arrays), read without exceptions: a
// missing member, a member of the wrong type or a value that is not an object all read as
// "absent". One set for every layer.
#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace reconscope::models {

// object[key], or a null value when object is not an object or has no such member.
inline const nlohmann::json &jsonMember(const nlohmann::json &object, const char *key)
{
    static const nlohmann::json absent;
    if (!object.is_object())
        return absent;
    const auto it = object.find(key);
    return it == object.end() ? absent : *it;
}

// object[key] itself, or nullptr when object is not an object or has no such member (a member
// that is null is found, unlike with jsonMember).
inline const nlohmann::json *jsonFind(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

// object[key] as a string; empty when absent or not a string.
inline QString jsonString(const nlohmann::json &object, const char *key)
{
    const nlohmann::json &value = jsonMember(object, key);
    return value.is_string() ? QString::fromStdString(value.get_ref<const std::string &>())
                             : QString();
}

// object[key] as an integer; fallback when absent or not an integer.
inline qint64 jsonInteger(const nlohmann::json &object, const char *key, qint64 fallback = 0)
{
    const nlohmann::json &value = jsonMember(object, key);
    return value.is_number_integer() ? value.get<qint64>() : fallback;
}

// object[key] as a boolean; fallback when absent or not a boolean.
inline bool jsonBool(const nlohmann::json &object, const char *key, bool fallback = false)
{
    const nlohmann::json &value = jsonMember(object, key);
    return value.is_boolean() ? value.get<bool>() : fallback;
}

// The string items of a JSON array, in order (other items skipped); empty when `array` is not an
// array.
inline QStringList jsonStrings(const nlohmann::json &array)
{
    QStringList list;
    if (!array.is_array())
        return list;
    for (const nlohmann::json &item : array) {
        if (item.is_string())
            list.append(QString::fromStdString(item.get_ref<const std::string &>()));
    }
    return list;
}

} // namespace reconscope::models
