#pragma once

// A read-only view of an object's metadata (apimachinery's ObjectMeta) over its JSON tree, read
// without exceptions through models/jsonfields.h: an absent or mistyped field reads as empty or 0.
// For raw bytes without a tree, the client has kube::ObjectMeta::peek.
#include "models/jsonfields.h"

namespace reconscope::models {

class ObjectMetaView
{
public:
    // `object` is the whole object ({"metadata": {...}, ...}); it must outlive the view.
    explicit ObjectMetaView(const nlohmann::json &object)
        : m_meta(jsonMember(object, "metadata"))
    { }

    QString name() const { return jsonString(m_meta, "name"); }
    QString namespace_() const { return jsonString(m_meta, "namespace"); }
    QString uid() const { return jsonString(m_meta, "uid"); }
    QString resourceVersion() const { return jsonString(m_meta, "resourceVersion"); }
    qint64 generation(qint64 fallback = 0) const
    {
        return jsonInteger(m_meta, "generation", fallback);
    }
    bool deleting() const { return jsonMember(m_meta, "deletionTimestamp").is_string(); }
    const nlohmann::json &labels() const { return jsonMember(m_meta, "labels"); }
    const nlohmann::json &annotations() const { return jsonMember(m_meta, "annotations"); }
    const nlohmann::json &ownerReferences() const { return jsonMember(m_meta, "ownerReferences"); }
    const nlohmann::json &finalizers() const { return jsonMember(m_meta, "finalizers"); }
    const nlohmann::json &json() const { return m_meta; }

private:
    const nlohmann::json &m_meta;
};

} // namespace reconscope::models
