#include "controller/cluster/objectjson.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster::objectjson {

const nlohmann::json &member(const nlohmann::json &object, const char *key)
{
    static const nlohmann::json null;
    if (!object.is_object())
        return null;
    auto it = object.find(key);
    return it == object.end() ? null : *it;
}

QString string(const nlohmann::json &object, const char *key)
{
    const nlohmann::json &value = member(object, key);
    return value.is_string() ? QString::fromStdString(value.get_ref<const std::string &>())
                             : QString();
}

QStringList strings(const nlohmann::json &array)
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

nlohmann::json array(const QStringList &strings)
{
    nlohmann::json result = nlohmann::json::array();
    for (const QString &s : strings)
        result.push_back(s.toStdString());
    return result;
}

bool hasApiVersion(const QByteArray &compactJson, const QString &apiVersion)
{
    static const QByteArray prefix = "{\"apiVersion\":\"";
    const QByteArray version = apiVersion.toUtf8();
    const qsizetype end = prefix.size() + version.size();
    return compactJson.size() > end && compactJson.startsWith(prefix)
        && QByteArrayView(compactJson).sliced(prefix.size(), version.size()) == version
        && compactJson[end] == '"';
}

QByteArray dump(const nlohmann::json &value)
{
    return QByteArray::fromStdString(
        value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QByteArray dumpPretty(const nlohmann::json &value)
{
    return QByteArray::fromStdString(
        value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

QString fieldValue(const nlohmann::json &object, const QString &path)
{
    const nlohmann::json *current = &object;
    const QStringList parts = path.split(u'.', Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        if (!current->is_object())
            return {};
        auto it = current->find(part.toStdString());
        if (it == current->end())
            return {};
        current = &*it;
    }
    if (current->is_string())
        return QString::fromStdString(current->get_ref<const std::string &>());
    if (current->is_boolean())
        return current->get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    if (current->is_number())
        return QString::fromStdString(current->dump());
    return {};
}

QString nestingError(QByteArrayView text)
{
    int depth = 0;
    bool inString = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxJsonNesting)
                return u"invalid character '%1' exceeded max depth"_s.arg(QLatin1Char(c));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return {};
}

} // namespace reconscope::controller::cluster::objectjson
