#include "models/objectyaml.h"

#include "models/yamljson.h"

#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

// YAML 1.1's timestamp: what go-yaml quotes (and PyYAML would read as a date) though JSON
// readers of YAML keep it a string.
bool looksLikeTimestamp(const std::string &text)
{
    static const QRegularExpression timestamp(
        uR"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?)"
        uR"(([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$)"_s);
    return text.size() >= 8 && text[4] == '-'
        && timestamp.match(QString::fromStdString(text)).hasMatch();
}

// Whether a plain scalar `text` reads back as the same string, for YAML 1.1 readers too.
bool plainIsSafe(const std::string &text)
{
    if (text.empty() || text.find('\n') != std::string::npos || looksLikeTimestamp(text))
        return false;
    const auto parsed = yamlToJson(QByteArrayView(text.data(), qsizetype(text.size())));
    return parsed.ok() && parsed.value().is_string() && parsed.value().get<std::string>() == text;
}

void emitValue(YAML::Emitter &out, const nlohmann::json &value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::object:
        if (value.empty()) {
            out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
            return;
        }
        out << YAML::BeginMap;
        for (auto it = value.begin(); it != value.end(); ++it) {
            out << YAML::Key;
            if (plainIsSafe(it.key()))
                out << it.key();
            else
                out << YAML::DoubleQuoted << it.key();
            out << YAML::Value;
            emitValue(out, it.value());
        }
        out << YAML::EndMap;
        return;
    case nlohmann::json::value_t::array:
        if (value.empty()) {
            out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
            return;
        }
        out << YAML::BeginSeq;
        for (const auto &item : value)
            emitValue(out, item);
        out << YAML::EndSeq;
        return;
    case nlohmann::json::value_t::string: {
        const std::string &text = value.get_ref<const std::string &>();
        if (plainIsSafe(text))
            out << text;
        else if (text.find('\n') != std::string::npos && text.back() == '\n'
                 && text.find_first_not_of(" \n") != std::string::npos && text.front() != ' '
                 && text.find('\t') == std::string::npos && text.find('\r') == std::string::npos)
            out << YAML::Literal << text;
        else
            out << YAML::DoubleQuoted << text;
        return;
    }
    case nlohmann::json::value_t::boolean:
        out << (value.get<bool>() ? "true" : "false");
        return;
    case nlohmann::json::value_t::number_integer:
        out << value.get<std::int64_t>();
        return;
    case nlohmann::json::value_t::number_unsigned:
        out << value.get<std::uint64_t>();
        return;
    case nlohmann::json::value_t::number_float:
        // JSON's own spelling: shortest round-trip form, always with a '.' or an exponent.
        out << value.dump();
        return;
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
    case nlohmann::json::value_t::binary:
        out << YAML::Null;
        return;
    }
}

} // namespace

QByteArray jsonToYaml(const nlohmann::json &value)
{
    YAML::Emitter out;
    out.SetIndent(2);
    out.SetSeqFormat(YAML::Block);
    out.SetMapFormat(YAML::Block);
    emitValue(out, value);
    QByteArray text(out.c_str(), qsizetype(out.size()));
    if (!text.endsWith('\n'))
        text.append('\n');
    return text;
}

} // namespace reconscope::models
