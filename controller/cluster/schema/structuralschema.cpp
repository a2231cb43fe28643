#include "controller/cluster/schema/structuralschema.h"

#include "controller/cluster/schema/schemanode.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

StructuralSchema::StructuralSchema() = default;

StructuralSchema::StructuralSchema(std::shared_ptr<const SchemaNode> root)
    : m_root(std::move(root))
{
    const SchemaNode &r = *m_root;
    m_checksMembersAlone = (r.type.empty() || r.type == "object") && !r.intOrString
        && r.allOf.empty() && r.anyOf.empty() && r.oneOf.empty() && !r.notSchema && !r.enumValues
        && !r.minProperties && !r.maxProperties && structural::canonicalDefaults(r);
}

models::Result<StructuralSchema> StructuralSchema::fromJson(const json &openAPIV3Schema)
{
    if (openAPIV3Schema.is_null())
        return StructuralSchema();
    auto root = structural::parse(openAPIV3Schema, u"openAPIV3Schema"_s);
    if (!root)
        return models::Result<StructuralSchema>(root.error());
    return StructuralSchema(std::move(root).value());
}

QStringList StructuralSchema::prune(json &object) const
{
    if (!m_root)
        return {};
    std::vector<std::string> pruned;
    structural::prune(object, m_root.get(), true, std::string(), pruned);
    std::sort(pruned.begin(), pruned.end());
    QStringList paths;
    paths.reserve(qsizetype(pruned.size()));
    for (const std::string &path : pruned)
        paths.append(QString::fromStdString(path));
    return paths;
}

void StructuralSchema::coerce(json &object) const
{
    if (!m_root)
        return;
    std::vector<std::string> pruned;
    structural::prune(object, m_root.get(), true, std::string(), pruned);
    structural::pruneNonNullableNulls(object, *m_root);
}

void StructuralSchema::applyDefaults(json &object, bool pruneNulls) const
{
    if (!m_root)
        return;
    structural::applyDefaults(object, *m_root, pruneNulls);
}

QList<FieldError> StructuralSchema::validate(const json &object) const
{
    if (!m_root)
        return {};
    // The root's metadata is ObjectMeta: its schema only constrains name/generateName.
    return structural::validate(*m_root, object, std::string(), nullptr);
}

QList<FieldError> StructuralSchema::validateUpdate(const json &object, const json &old) const
{
    if (!m_root)
        return {};
    return structural::validate(*m_root, object, std::string(), &old);
}

bool StructuralSchema::declaresStatus() const
{
    return m_root && m_root->properties.contains("status");
}

bool StructuralSchema::checksMembersAlone() const
{
    return m_checksMembersAlone;
}

const std::vector<std::string> &StructuralSchema::requiredMembers() const
{
    static const std::vector<std::string> none;
    return m_root ? m_root->required : none;
}

QList<FieldError> StructuralSchema::validateMemberUpdate(const std::string &key,
                                                         const json &value,
                                                         const json *old) const
{
    if (!m_root)
        return {};
    const SchemaNode *node = nullptr;
    if (auto p = m_root->properties.find(key); p != m_root->properties.end())
        node = p->second.get();
    else if (m_root->hasAdditionalProperties)
        node = m_root->additionalProperties.get();
    if (!node)
        return {};
    // Validated as a document of its own: kube-openapi names the values in its messages from
    // the member down, the fields carry the member's name in front.
    QList<FieldError> errors = structural::validate(*node, value, std::string(), old);
    const QString member = QString::fromStdString(key);
    for (FieldError &error : errors) {
        if (error.field.isEmpty())
            error.field = member;
        else if (error.field.startsWith(u'['))
            error.field.prepend(member);
        else
            error.field.prepend(member + u'.');
    }
    return errors;
}

} // namespace reconscope::controller::cluster
