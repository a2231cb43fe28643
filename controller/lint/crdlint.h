#pragma once

#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace reconscope::controller::lint {

// The API boundary lint of a CustomResourceDefinition (apiextensions.k8s.io/v1): does the CRD keep
// the seed's Spec/Status contract? Spec is the desired state, written by users and GitOps only and
// read-only to the controller; Status is the observed state, written by the controller only,
// through the /status subresource, and summarised by metav1.Conditions. Each finding points at
// the schema path that breaks the contract and says why it matters.
//
// Rules, per served version (ids are stable; the tests pin them):
//  error   no-status-subresource      status (or observed fields) but no /status subresource:
//                                      status writes go through the main resource, bump generation
//                                      and race every spec writer (the seed's 409 story).
//  info    no-status                  no status at all and nothing observed in spec: a
//                                      configuration-only resource; nothing to verify.
//  error   observed-field-in-spec     observed*, current*, ready*, available*, healthy*,
//                                      last*Time, phase, conditions inside spec.
//  warning desired-field-in-status    desired*, target* inside status. status.replicas is not
//                                      flagged: it is the observed count (Deployment, /scale).
//  warning missing-observed-generation (info when the conditions carry observedGeneration)
//  info    opaque-status              status is x-kubernetes-preserve-unknown-fields without
//                                      properties: its shape cannot be checked.
//  warning conditions-shape           conditions items lack metav1.Condition fields.
//  warning conditions-list-type       conditions not x-kubernetes-list-type: map keyed by type.
//  warning phase-without-conditions   a status.phase string and no conditions.
//  warning no-summary-condition       the enum of condition types is known and has no Ready or
//                                      Available (skipped when the types are open).
//  warning printer-column-reads-spec  an additionalPrinterColumn shows state read from spec.
//  error   scale-status-path-in-spec  subresources.scale.statusReplicasPath under .spec.
enum class Severity { Error, Warning, Info };

QString severityName(Severity severity); // "error", "warning", "info"

struct Finding
{
    QString id;
    Severity severity = Severity::Warning;
    QString version; // the CRD version the finding is about ("" for the CRD as a whole)
    // The schema path in the CRD, e.g.
    // spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.currentReplicas
    QString path;
    QString message;
};

struct CrdLintResult
{
    QString crdName; // metadata.name
    QString group;
    QString kind;
    QStringList servedVersions;
    QString source; // the file (and document index) or "cluster"
    QList<Finding> findings;

    bool hasErrors() const;
    int count(Severity severity) const;
    bool clean() const { return findings.isEmpty(); }
};

// Lints one CRD object (already parsed). Fails when it is not an apiextensions.k8s.io/v1
// CustomResourceDefinition with at least one version.
models::Result<CrdLintResult> lintCrd(const nlohmann::json &crd);

// The CRDs of a (multi-document) YAML or JSON manifest; documents of other kinds are skipped (a
// List's items are looked into). Fails with a message naming `source` when the text does not
// parse or holds no CRD.
models::Result<QList<nlohmann::json>> crdsFromManifest(const QByteArray &text,
                                                       const QString &source);

// Reads and lints every CRD of a file.
models::Result<QList<CrdLintResult>> lintCrdFile(const QString &path);

// The observed-looking field names of the rule observed-field-in-spec (exposed for the live check,
// which writes such a field where a CRD keeps its observations in spec).
bool looksObserved(const QString &fieldName);
bool looksDesired(const QString &fieldName);

} // namespace reconscope::controller::lint
