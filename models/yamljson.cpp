#include "models/yamljson.h"
#include "models/yamlloadall.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <QRegularExpression>
#include <QString>

#include <cmath>
#include <limits>
#include <map>
#include <string>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

using Json = nlohmann::json;

constexpr qint64 MaxValues = 10'000'000;
constexpr int MaxDepth = 1000;
const std::string TagPrefix = "tag:yaml.org,2002:";

struct ConversionError
{
    QString message;
};

QString where(const YAML::Mark &mark)
{
    if (mark.is_null())
        return {};
    return u" (line %1, column %2)"_s.arg(mark.line + 1).arg(mark.column + 1);
}

bool matchesFloat(const std::string &text)
{
    static const QRegularExpression floatRe(
        u"^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"_s);
    return floatRe.match(QString::fromStdString(text)).hasMatch();
}

std::optional<double> parseFloat(const std::string &text)
{
    if (!matchesFloat(text))
        return std::nullopt;
    bool ok = false;
    const double value = QByteArray::fromStdString(text).toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

// Go's strconv.ParseInt(s, 0, 64), falling back to ParseUint for values above int64: sign, then
// 0x / 0o / 0b / leading-0 octal / decimal digits.
std::optional<Json> parseInteger(const std::string &text)
{
    std::size_t pos = 0;
    bool negative = false;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
        negative = text[pos] == '-';
        ++pos;
    }
    const bool hasSign = pos > 0;
    int base = 10;
    if (text.size() - pos >= 2 && text[pos] == '0') {
        const char p = text[pos + 1];
        if (p == 'x' || p == 'X') {
            base = 16;
            pos += 2;
        } else if (p == 'o' || p == 'O') {
            base = 8;
            pos += 2;
        } else if (p == 'b' || p == 'B') {
            base = 2;
            pos += 2;
        } else {
            base = 8;
            pos += 1;
        }
    }
    if (pos >= text.size())
        return std::nullopt;
    std::uint64_t magnitude = 0;
    for (; pos < text.size(); ++pos) {
        const char c = text[pos];
        int digit = -1;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        if (digit < 0 || digit >= base)
            return std::nullopt;
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - std::uint64_t(digit))
                / std::uint64_t(base))
            return std::nullopt; // out of range even for uint64
        magnitude = magnitude * std::uint64_t(base) + std::uint64_t(digit);
    }
    constexpr auto int64Max = std::uint64_t(std::numeric_limits<std::int64_t>::max());
    if (negative) {
        if (magnitude > int64Max + 1)
            return std::nullopt;
        if (magnitude == int64Max + 1)
            return Json(std::numeric_limits<std::int64_t>::min());
        return Json(-std::int64_t(magnitude));
    }
    if (magnitude <= int64Max)
        return Json(std::int64_t(magnitude));
    if (hasSign)
        return std::nullopt; // ParseUint takes no sign
    return Json(magnitude);
}

std::optional<Json> lookupWord(const std::string &text)
{
    static const std::vector<std::pair<std::vector<std::string>, Json>> words = {
        { { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" }, Json(true) },
        { { "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF" },
          Json(false) },
        { { "", "~", "null", "Null", "NULL" }, Json(nullptr) },
    };
    for (const auto &[spellings, value] : words) {
        if (std::find(spellings.begin(), spellings.end(), text) != spellings.end())
            return value;
    }
    return std::nullopt;
}

bool isNonFinite(const std::string &text)
{
    static const std::vector<std::string> spellings = {
        ".nan",  ".NaN",  ".NAN",  ".inf",  ".Inf",  ".INF",
        "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
    };
    return std::find(spellings.begin(), spellings.end(), text) != spellings.end();
}

// A plain scalar as go-yaml v2 resolves it.
Json resolvePlain(const std::string &text, const YAML::Mark &mark)
{
    if (auto word = lookupWord(text))
        return *word;
    if (isNonFinite(text))
        throw ConversionError{ u"%1 has no JSON representation%2"_s.arg(
            QString::fromStdString(text), where(mark)) };
    const char first = text.empty() ? '\0' : text.front();
    if (first == '.') {
        if (auto value = parseFloat(text))
            return *value;
        return text;
    }
    const bool digitOrSign = (first >= '0' && first <= '9') || first == '+' || first == '-';
    if (!digitOrSign)
        return text;
    std::string plain;
    plain.reserve(text.size());
    for (const char c : text) {
        if (c != '_')
            plain.push_back(c);
    }
    if (auto integer = parseInteger(plain))
        return *integer;
    if (matchesFloat(plain)) {
        // Also integers beyond 64 bits: sigs.k8s.io/yaml keeps them as big numbers, JSON readers
        // (and nlohmann) as doubles.
        bool ok = false;
        const double value = QByteArray::fromStdString(plain).toDouble(&ok);
        if (ok && std::isfinite(value))
            return value;
    }
    return text;
}

Json scalarToJson(const YAML::Node &node)
{
    const std::string &tag = node.Tag();
    const std::string &text = node.Scalar();
    if (tag == "?" || tag.empty())
        return resolvePlain(text, node.Mark());
    if (tag == "!" || tag.rfind(TagPrefix, 0) != 0)
        return text; // quoted, block or custom-tagged scalar: a string
    const std::string kind = tag.substr(TagPrefix.size());
    if (kind == "str" || kind == "binary" || kind == "timestamp")
        return text;
    if (kind == "null") {
        if (auto word = lookupWord(text); word && word->is_null())
            return nullptr;
    } else if (kind == "bool") {
        if (auto word = lookupWord(text); word && word->is_boolean())
            return *word;
    } else if (kind == "int") {
        std::string plain;
        for (const char c : text) {
            if (c != '_')
                plain.push_back(c);
        }
        if (auto integer = parseInteger(plain))
            return *integer;
    } else if (kind == "float") {
        const Json value = resolvePlain(text, node.Mark());
        if (value.is_number())
            return value.is_number_float() ? value : Json(value.get<double>());
    } else {
        return text;
    }
    throw ConversionError{ u"cannot read \"%1\" as !!%2%3"_s.arg(
        QString::fromStdString(text), QString::fromStdString(kind), where(node.Mark())) };
}

// How many values a node expands to once aliases are resolved, memoised per source position so
// that an alias bomb is measured without being expanded; a recursive alias (yaml-cpp builds
// cyclic nodes for "&a [*a]") or absurd nesting is refused.
class SizeEstimator
{
public:
    qint64 size(const YAML::Node &node, int depth = 0)
    {
        if (depth > MaxDepth)
            throw ConversionError{
                u"nesting deeper than %1 levels (recursive alias?)%2"_s.arg(MaxDepth).arg(
                    where(node.Mark()))
            };
        const YAML::Mark mark = node.Mark();
        const bool container = node.IsMap() || node.IsSequence();
        const auto memoKey = std::make_pair(mark.pos, int(node.Type()));
        if (container && !mark.is_null()) {
            if (const auto it = m_memo.find(memoKey); it != m_memo.end())
                return it->second;
        }
        qint64 total = 1;
        if (node.IsSequence()) {
            for (const YAML::Node &item : node)
                total = std::min(total + size(item, depth + 1), MaxValues + 1);
        } else if (node.IsMap()) {
            for (const auto &entry : node)
                total = std::min(total + size(entry.second, depth + 1), MaxValues + 1);
        }
        if (container && !mark.is_null())
            m_memo.emplace(memoKey, total);
        return total;
    }

private:
    std::map<std::pair<int, int>, qint64> m_memo;
};

class Converter
{
public:
    Json convert(const YAML::Node &node, int depth = 0)
    {
        if (++m_values > MaxValues)
            throw ConversionError{
                u"the document expands to more than %1 values (alias bomb?)"_s.arg(MaxValues)
            };
        if (depth > MaxDepth)
            throw ConversionError{
                u"nesting deeper than %1 levels (recursive alias?)%2"_s.arg(MaxDepth).arg(
                    where(node.Mark()))
            };
        switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            if (node.Tag() == TagPrefix + "str")
                return std::string();
            return nullptr;
        case YAML::NodeType::Scalar:
            return scalarToJson(node);
        case YAML::NodeType::Sequence: {
            Json array = Json::array();
            for (const YAML::Node &item : node)
                array.push_back(convert(item, depth + 1));
            return array;
        }
        case YAML::NodeType::Map:
            return convertMap(node, depth);
        }
        return nullptr;
    }

private:
    std::string keyText(const YAML::Node &key)
    {
        if (key.IsNull())
            return "null";
        if (!key.IsScalar())
            throw ConversionError{ u"a mapping key must be a scalar%1"_s.arg(where(key.Mark())) };
        const Json value = scalarToJson(key);
        if (value.is_string())
            return value.get<std::string>();
        return value.dump();
    }

    void mergeInto(Json &object, const YAML::Node &source, int depth)
    {
        const auto mergeOne = [&](const YAML::Node &map) {
            if (!map.IsMap())
                throw ConversionError{ u"a merge key (<<) needs a mapping or a list of mappings%1"_s
                                           .arg(where(map.Mark())) };
            const Json merged = convertMap(map, depth + 1);
            for (const auto &[key, value] : merged.items()) {
                if (!object.contains(key))
                    object[key] = value;
            }
        };
        if (source.IsSequence()) {
            for (const YAML::Node &item : source)
                mergeOne(item);
        } else {
            mergeOne(source);
        }
    }

    Json convertMap(const YAML::Node &node, int depth)
    {
        Json object = Json::object();
        std::vector<YAML::Node> merges;
        for (const auto &entry : node) {
            const YAML::Node &key = entry.first;
            if (key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<") {
                merges.push_back(entry.second);
                continue;
            }
            object[keyText(key)] = convert(entry.second, depth + 1);
        }
        // Explicit keys win over merged ones; earlier merge sources over later ones.
        for (const YAML::Node &source : merges)
            mergeInto(object, source, depth);
        return object;
    }

    qint64 m_values = 0;
};

Result<QList<Json>> convertAll(QByteArrayView yaml)
{
    try {
        const std::vector<YAML::Node> documents
            = loadAllYamlDocuments(std::string(yaml.data(), std::size_t(yaml.size())));
        QList<Json> result;
        Converter converter;
        for (const YAML::Node &document : documents) {
            if (document.IsNull() && document.Tag() != TagPrefix + "str")
                continue;
            if (SizeEstimator().size(document) > MaxValues)
                throw ConversionError{
                    u"the document expands to more than %1 values (alias bomb?)"_s.arg(MaxValues)
                };
            result.append(converter.convert(document));
        }
        return result;
    } catch (const ConversionError &error) {
        return Result<QList<Json>>::failure(u"YAML: "_s + error.message);
    } catch (const YAML::DeepRecursion &error) {
        return Result<QList<Json>>::failure(
            u"YAML: nesting too deep (more than %1 levels)%2"_s.arg(error.depth())
                .arg(where(error.mark)));
    } catch (const YAML::Exception &error) {
        return Result<QList<Json>>::failure(
            u"YAML: %1%2"_s.arg(QString::fromStdString(error.msg), where(error.mark)));
    } catch (const std::exception &error) {
        return Result<QList<Json>>::failure(u"YAML: %1"_s.arg(QString::fromUtf8(error.what())));
    }
}

} // namespace

Result<nlohmann::json> yamlToJson(QByteArrayView yaml)
{
    auto documents = convertAll(yaml);
    if (!documents)
        return documents.error();
    if (documents->size() > 1)
        return Result<Json>::failure(
            u"YAML: expected one document, found %1"_s.arg(documents->size()));
    if (documents->isEmpty())
        return Json(nullptr);
    return documents->front();
}

Result<QList<nlohmann::json>> yamlDocumentsToJson(QByteArrayView yaml)
{
    return convertAll(yaml);
}

} // namespace reconscope::models
