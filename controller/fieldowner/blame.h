#pragma once

#include "controller/fieldowner/managedfields.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

// "Who owns what": an object's fields with the managers its managedFields name for each, as a
// blame of its YAML (the console's Fields tab, `reconscope fields`) and as a listing.
namespace reconscope::controller::fieldowner {

// One manager's hold on a field.
struct FieldOwner
{
    QString manager;
    QString operation; // "Apply", "Update"
    QString subresource; // "status", or empty
    QString apiVersion;
    QDateTime time; // invalid: none recorded

    friend bool operator==(const FieldOwner &, const FieldOwner &) = default;
    // "gitops (Apply)", "reconciler (Update /status)".
    QString label() const;
};

// A line of the object's YAML and who owns the field it shows.
struct BlameLine
{
    QString text; // the YAML line, indented, without newline
    QString path; // upstream's path text of the field the line shows (".spec.replicas"), or empty
    QList<FieldOwner> owners;
    // The owners hold the field through a container they own whole (an atomic list or map).
    bool inherited = false;
};

// A field (a path some entry owns) and its owners, in upstream's path order.
struct OwnedField
{
    QString path;
    QList<FieldOwner> owners;
};

struct Blame
{
    QList<BlameLine> lines; // the object without metadata.managedFields
    QList<OwnedField> fields;
    QList<FieldOwner> managers; // the readable entries, as managedFields lists them
    // Entries that could not be read, each with why ("managedFields[2]: unknown fieldsType
    // \"FieldsV2\""); the rest are still shown.
    QStringList problems;
};

// The blame of an object (its JSON as the server returns it). Never fails: unreadable entries
// are problems, an object without managedFields has lines without owners.
Blame blame(const nlohmann::json &object);

// The blame as text: a gutter of owners (those of `manager` only, when given) beside each line.
QString blameText(const Blame &blame, const QDateTime &now, const QString &manager = {});
// {"fields":[{"path":...,"owners":[{"manager","operation","subresource","apiVersion","time"}]}],
//  "managers":[...], "problems":[...]}.
nlohmann::json blameJson(const Blame &blame);

} // namespace reconscope::controller::fieldowner
