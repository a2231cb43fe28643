#pragma once

#include "controller/kube/restclient.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace reconscope::controller::labs {

// The patch lab's editor side, pure: what a patch targets, its templates, and the checks run on
// the text as the user types.
enum class PatchTarget { Main, Status };
enum class Precondition {
    None, // a patch without a resourceVersion never conflicts
    Current, // metadata.resourceVersion = the version just read
    Stale, // metadata.resourceVersion = a version that is not the current one: 409 Conflict
};

QString targetName(PatchTarget target); // "main resource", "/status"
QString patchTypeName(apimachinery::PatchType type); // "merge", "json"
QByteArray patchContentType(apimachinery::PatchType type);
QString preconditionName(Precondition precondition);

// What the editor holds, checked as the user types.
struct PatchValidation
{
    bool ok = false;
    QString message; // empty when ok
    // Where a JSON syntax error is (1-based), 0 when the text parses.
    int line = 0;
    int column = 0;
    qsizetype offset = -1; // character offset into the text, -1 when none
    nlohmann::json patch; // the parsed patch when ok
};

// JSON syntax (with the error's position), then the shape the patch type requires: a merge patch
// (RFC 7386) must be an object; a JSON patch (RFC 6902) an array of operations, each with a known
// "op", a JSON-pointer "path", "value" for add/replace/test and "from" for move/copy.
PatchValidation validatePatch(const QString &text, apimachinery::PatchType type);
// Whether `pointer` is an RFC 6901 JSON pointer ("" or "/a/b~1c"); the reason when it is not.
QString jsonPointerProblem(const QString &pointer);

enum class PatchTemplate {
    ManualOverride, // the seed's: Ready=False, reason ManualOverride, lastTransitionTime now
    SetDegraded, // Degraded=True (and Ready=False), reason ManualDegraded
    ClearConditions, // status.conditions emptied
    BumpSpecField, // spec.replicas (or the first number in spec) + 1
};
QList<PatchTemplate> allTemplates();
QString templateName(PatchTemplate t);
// The template as a patch of `type` for `object` (the object as last read; it decides JSON patch
// paths and the spec field to bump). Times are RFC 3339 UTC with seconds, as metav1.Time.
nlohmann::json makeTemplate(PatchTemplate t,
                            apimachinery::PatchType type,
                            const nlohmann::json &object,
                            const QDateTime &now);

// The patch with the resourceVersion precondition in it, as kubectl and client-go put it: a merge
// patch gets metadata.resourceVersion; a JSON patch gets an operation setting
// /metadata/resourceVersion (the patched object then carries it, and the update that follows is
// checked against the stored version).
nlohmann::json withResourceVersion(const nlohmann::json &patch,
                                   apimachinery::PatchType type,
                                   const QString &resourceVersion);
// A resourceVersion that is deliberately not `current` (resourceVersions are opaque strings
// compared for equality; for the numeric ones of etcd this is the previous revision).
QString staleResourceVersion(const QString &current);

} // namespace reconscope::controller::labs
