#include "controller/cluster/schema/structuralschema.h"

namespace reconscope::controller::cluster {

struct SchemaNode
{
    nlohmann::json raw;
};

StructuralSchema::StructuralSchema() = default;

StructuralSchema::StructuralSchema(std::shared_ptr<const SchemaNode> root)
    : m_root(std::move(root))
{ }

models::Result<StructuralSchema> StructuralSchema::fromJson(const nlohmann::json &openAPIV3Schema)
{
    if (openAPIV3Schema.is_null())
        return StructuralSchema();
    return StructuralSchema(std::make_shared<const SchemaNode>(SchemaNode{ openAPIV3Schema }));
}

QStringList StructuralSchema::prune(nlohmann::json &) const
{
    return {};
}

void StructuralSchema::applyDefaults(nlohmann::json &) const { }

QList<FieldError> StructuralSchema::validate(const nlohmann::json &) const
{
    return {};
}

bool StructuralSchema::declaresStatus() const
{
    return m_root && m_root->raw.contains("properties")
        && m_root->raw["properties"].contains("status");
}

} // namespace reconscope::controller::cluster
