#pragma once

// Read-only views of a CustomApp's spec and status over its JSON tree, read without exceptions
// through models/jsonfields.h as ObjectMetaView reads metadata. The typed readings treat an absent
// or mistyped field as empty (or the fallback); the members as stored stay reachable for the
// checks that must tell a mistyped field from an absent one and for copying values unchanged.
#include "models/jsonfields.h"

namespace reconscope::models {

// spec: image, replicas, port, configJSON, secretRef.name, paused (resources/crds).
class CustomAppSpecView
{
public:
    // `app` is the whole CustomApp; it must outlive the view.
    explicit CustomAppSpecView(const nlohmann::json &app)
        : m_spec(jsonMember(app, "spec"))
    { }

    bool isObject() const { return m_spec.is_object(); }

    QString image() const { return jsonString(m_spec, "image"); }
    // spec.replicas, or `fallback` when absent or not an integer.
    qint64 replicas(qint64 fallback) const { return jsonInteger(m_spec, "replicas", fallback); }
    QString secretName() const { return jsonString(secretRef(), "name"); }
    bool paused() const { return jsonMember(m_spec, "paused") == nlohmann::json(true); }

    // The members as stored (null when absent).
    const nlohmann::json &imageValue() const { return jsonMember(m_spec, "image"); }
    const nlohmann::json &replicasValue() const { return jsonMember(m_spec, "replicas"); }
    const nlohmann::json &portValue() const { return jsonMember(m_spec, "port"); }
    const nlohmann::json &configJSONValue() const { return jsonMember(m_spec, "configJSON"); }
    const nlohmann::json &secretRef() const { return jsonMember(m_spec, "secretRef"); }
    const nlohmann::json &json() const { return m_spec; }

private:
    const nlohmann::json &m_spec;
};

// status: observedGeneration, conditions, replicas, readyReplicas, as the reconciler writes them.
class CustomAppStatusView
{
public:
    // `app` is the whole CustomApp; it must outlive the view.
    explicit CustomAppStatusView(const nlohmann::json &app)
        : m_status(jsonMember(app, "status"))
    { }

    bool isObject() const { return m_status.is_object(); }

    qint64 observedGeneration(qint64 fallback = 0) const
    {
        return jsonInteger(m_status, "observedGeneration", fallback);
    }
    qint64 replicas(qint64 fallback = 0) const
    {
        return jsonInteger(m_status, "replicas", fallback);
    }
    qint64 readyReplicas(qint64 fallback = 0) const
    {
        return jsonInteger(m_status, "readyReplicas", fallback);
    }
    const nlohmann::json &conditions() const { return jsonMember(m_status, "conditions"); }
    const nlohmann::json &json() const { return m_status; }

private:
    const nlohmann::json &m_status;
};

} // namespace reconscope::models
