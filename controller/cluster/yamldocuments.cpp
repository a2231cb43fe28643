#include "controller/cluster/yamldocuments.h"
#include "models/yamlloadall.h"

#include <yaml-cpp/yaml.h>

#include <QRegularExpression>
#include <QString>

#include <charconv>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

nlohmann::json scalarToJson(const YAML::Node &node)
{
    const std::string &text = node.Scalar();
    const std::string &tag = node.Tag();
    if (tag == "!" || tag == "tag:yaml.org,2002:str")
        return text;
    if (tag != "?" && !tag.empty() && tag.rfind("tag:yaml.org,2002:", 0) != 0)
        return text;
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
        return nullptr;
    if (text == "true" || text == "True" || text == "TRUE")
        return true;
    if (text == "false" || text == "False" || text == "FALSE")
        return false;
    static const QRegularExpression integer(u"^[-+]?[0-9]+$"_s);
    static const QRegularExpression number(
        u"^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"_s);
    const QString qtext = QString::fromStdString(text);
    if (integer.match(qtext).hasMatch()) {
        const char *begin = text.data() + (text.front() == '+' ? 1 : 0);
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
        if (error == std::errc() && end == text.data() + text.size())
            return value;
        std::uint64_t unsignedValue = 0;
        auto [uend, uerror] = std::from_chars(begin, text.data() + text.size(), unsignedValue);
        if (uerror == std::errc() && uend == text.data() + text.size())
            return unsignedValue;
        return qtext.toDouble();
    }
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
        bool ok = false;
        const qlonglong value = qtext.mid(2).toLongLong(&ok, text[1] == 'x' ? 16 : 8);
        if (ok)
            return static_cast<std::int64_t>(value);
    }
    if (number.match(qtext).hasMatch())
        return qtext.toDouble();
    if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf")
        return std::numeric_limits<double>::infinity();
    if (text == "-.inf" || text == "-.Inf" || text == "-.INF")
        return -std::numeric_limits<double>::infinity();
    return text;
}

nlohmann::json nodeToJson(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        return nullptr;
    case YAML::NodeType::Scalar:
        return scalarToJson(node);
    case YAML::NodeType::Sequence: {
        nlohmann::json array = nlohmann::json::array();
        for (const YAML::Node &item : node)
            array.push_back(nodeToJson(item));
        return array;
    }
    case YAML::NodeType::Map: {
        nlohmann::json object = nlohmann::json::object();
        for (const auto &entry : node) {
            std::string key
                = entry.first.IsScalar() ? entry.first.Scalar() : YAML::Dump(entry.first);
            object[key] = nodeToJson(entry.second);
        }
        return object;
    }
    }
    return nullptr;
}

} // namespace

models::Result<QList<nlohmann::json>> yamlDocumentsToJson(const QByteArray &yaml)
{
    QList<nlohmann::json> documents;
    try {
        const std::vector<YAML::Node> nodes = models::loadAllYamlDocuments(yaml.toStdString());
        for (const YAML::Node &node : nodes) {
            if (node.IsNull())
                continue;
            documents.append(nodeToJson(node));
        }
    } catch (const YAML::Exception &error) {
        return models::Result<QList<nlohmann::json>>::failure(QString::fromStdString(error.what()));
    }
    return documents;
}

} // namespace reconscope::controller::cluster
