#pragma once

#include "models/condition.h"
#include "models/lifecyclemapping.h"
#include "models/result.h"

#include <nlohmann/json_fwd.hpp>

#include <QByteArrayView>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace reconscope::models {

// One metadata.managedFields entry as the summary keeps it: who wrote which fields, how and when.
// The fields stay fieldsV1's compact JSON text (members in name order, as compactJson writes them;
// objects written alike share it through the client's string pool), decoded only by readers that
// need the paths (controller/fieldowner).
struct ManagedFieldsEntry
{
    QString manager;
    QString operation; // "Apply" or "Update" (kept as the server wrote it)
    QString apiVersion;
    QString subresource; // "status", or empty
    QString fieldsType; // "FieldsV1"; anything else is kept to be shown as such
    QDateTime time; // invalid when absent or unparsable
    QString fieldsV1; // compact JSON of the fieldsV1 object; empty when absent or not an object

    friend bool operator==(const ManagedFieldsEntry &, const ManagedFieldsEntry &) = default;
};

// What the console keeps of one custom resource: identity, generations, deletion, labels,
// managedFields, conditions and the few plain status fields its CRD's mapping asks for. The
// object's JSON tree is not kept. Read leniently: a field of the wrong type is treated as absent
// (and noted in readProblems), never an error, except a missing metadata.name.
struct ObjectSummary
{
    QString key; // "namespace/name", or "name" for a cluster-scoped object
    QString namespaceName;
    QString name;
    QString apiVersion;
    QString kind;
    QString uid;
    QString resourceVersion;
    std::optional<qint64> generation; // metadata.generation
    std::optional<qint64> observedGeneration; // status.observedGeneration (may be -1)
    QDateTime creationTimestamp; // invalid when absent
    bool markedForDeletion = false; // metadata.deletionTimestamp is a non-empty string
    QDateTime deletionTimestamp; // invalid when absent or unparsable
    QStringList finalizers;
    QMap<QString, QString> labels;
    QList<ManagedFieldsEntry> managedFields; // metadata.managedFields, leniently read
    ConditionList conditions; // status.conditions, leniently read
    bool hasStatus = false; // status is an object
    int statusFieldCount = 0; // number of keys in the status object
    // Values of the mapping's projected paths that are present, as text: strings as they are,
    // numbers and booleans as JSON, objects/arrays as compact JSON.
    QMap<QString, QString> fields;
    // Fields read leniently because they had the wrong type ("metadata.generation: expected an
    // integer, got string"). kstatus treats some of them as errors.
    QStringList readProblems;
    // kstatus could not read generation, observedGeneration or conditions (a type error upstream).
    bool kstatusUnreadable = false;

    bool statusEmpty() const { return hasStatus && statusFieldCount == 0; }

    // The summary of an object's tree. A reader of the object's bytes (the client's
    // ObjectSummarizer) need only keep the members at readPaths() for it.
    static Result<ObjectSummary> fromJson(const nlohmann::json &object,
                                          const LifecycleMapping &mapping);
    // The members fromJson reads, each as its path of member names: apiVersion, kind, the
    // metadata it keeps, status.observedGeneration and status.conditions, then the mapping's
    // projected paths (a member of another read member's value is read with it).
    static std::vector<std::vector<std::string>> readPaths(const LifecycleMapping &mapping);
};

// The namespace/name key client-go's MetaNamespaceKeyFunc would give.
QString objectKey(const QString &namespaceName, const QString &name);

} // namespace reconscope::models
