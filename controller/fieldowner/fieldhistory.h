#pragma once

#include "controller/fieldowner/blame.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <deque>

namespace reconscope::controller::fieldowner {

// One change of one field between two versions of an object, and who made it.
struct FieldChange
{
    QDateTime time; // when the version was seen
    QString path; // upstream's path text: ".spec.replicas"
    QString before; // the field's YAML as it was ("replicas: 1"); empty when it was added
    QString after; // as it is; empty when it was removed
    // The managers that own the field in the new version (for a removal, those that owned it),
    // the latest writer first.
    QList<FieldOwner> managers;
    QString resourceVersion;

    // "gitops (Apply)" or "unknown" when no entry owns the field.
    QString writer() const;
};

// The successive values of an object's fields (diffs of consecutive versions, attributed through
// managedFields), bounded: at most `limit` changes are kept, the oldest dropped first. metadata's
// resourceVersion, generation and managedFields are not fields of the history.
class FieldHistory
{
public:
    static constexpr int DefaultLimit = 200;
    explicit FieldHistory(int limit = DefaultLimit);

    // A version of the object, seen at `time`; the first sets the baseline. Returns how many
    // changes it added.
    int observe(const nlohmann::json &object, const QDateTime &time);
    const std::deque<FieldChange> &changes() const { return m_changes; }
    void clear();

private:
    struct Field
    {
        QString text; // the YAML lines of the field, joined
        QList<FieldOwner> owners;
    };
    QHash<QString, Field> fieldsOf(const nlohmann::json &object) const;

    int m_limit;
    bool m_seen = false;
    QHash<QString, Field> m_last;
    std::deque<FieldChange> m_changes;
};

// Histories of a few objects (the selected and pinned ones), by key: at most `objects` are
// followed, the one followed longest ago dropped first.
class FieldHistories
{
public:
    explicit FieldHistories(int objects = 20, int limit = FieldHistory::DefaultLimit);

    // Starts following `key` (no effect when followed already).
    void follow(const QString &key);
    bool follows(const QString &key) const { return m_histories.contains(key); }
    void forget(const QString &key);
    // A version of a followed object (ignored for others).
    int observe(const QString &key, const nlohmann::json &object, const QDateTime &time);
    const FieldHistory *history(const QString &key) const;
    QStringList followed() const { return m_order; }

private:
    int m_objects;
    int m_limit;
    QStringList m_order; // oldest followed first
    QHash<QString, FieldHistory> m_histories;
};

} // namespace reconscope::controller::fieldowner
