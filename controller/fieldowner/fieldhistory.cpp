#include "controller/fieldowner/fieldhistory.h"

#include "models/jsonfields.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::fieldowner {

namespace {

// Fields every write changes, or that hold the ownership itself: not history.
bool isBookkeeping(const QString &path)
{
    return path == u".metadata.resourceVersion"_s || path == u".metadata.generation"_s
        || path.startsWith(u".metadata.managedFields"_s);
}

// The latest writer first; owners without a time last.
void sortByTime(QList<FieldOwner> &owners)
{
    std::stable_sort(owners.begin(), owners.end(), [](const FieldOwner &a, const FieldOwner &b) {
        return a.time.isValid() && (!b.time.isValid() || a.time > b.time);
    });
}

} // namespace

QString FieldChange::writer() const
{
    return managers.isEmpty() ? u"unknown"_s : managers.constFirst().label();
}

FieldHistory::FieldHistory(int limit)
    : m_limit(std::max(1, limit))
{ }

QHash<QString, FieldHistory::Field> FieldHistory::fieldsOf(const nlohmann::json &object) const
{
    // The blame's lines are the object's fields, a line per scalar (a multi-line string, several
    // lines of one path); containers' own lines carry no value and are left out.
    QHash<QString, Field> fields;
    const Blame blamed = blame(object);
    for (const BlameLine &line : blamed.lines) {
        if (line.path.isEmpty() || isBookkeeping(line.path) || line.text.trimmed().endsWith(u':'))
            continue;
        Field &field = fields[line.path];
        QString text = line.text.trimmed();
        if (text.startsWith(u"- "_s))
            text = text.mid(2);
        field.text += field.text.isEmpty() ? text : u'\n' + text;
        field.owners = line.owners;
    }
    return fields;
}

int FieldHistory::observe(const nlohmann::json &object, const QDateTime &time)
{
    QHash<QString, Field> now = fieldsOf(object);
    if (!m_seen) {
        m_seen = true;
        m_last = std::move(now);
        return 0;
    }
    const QString resourceVersion
        = models::jsonString(models::jsonMember(object, "metadata"), "resourceVersion");
    QStringList paths = now.keys();
    for (auto it = m_last.cbegin(); it != m_last.cend(); ++it) {
        if (!now.contains(it.key()))
            paths << it.key();
    }
    std::sort(paths.begin(), paths.end());
    int added = 0;
    for (const QString &path : std::as_const(paths)) {
        const auto before = m_last.constFind(path);
        const auto after = now.constFind(path);
        const QString beforeText = before == m_last.cend() ? QString() : before->text;
        const QString afterText = after == now.cend() ? QString() : after->text;
        if (beforeText == afterText)
            continue;
        FieldChange change{ time, path, beforeText, afterText, {}, resourceVersion };
        change.managers = after != now.cend() ? after->owners : before->owners;
        sortByTime(change.managers);
        m_changes.push_back(std::move(change));
        ++added;
    }
    while (int(m_changes.size()) > m_limit)
        m_changes.pop_front();
    m_last = std::move(now);
    return added;
}

void FieldHistory::clear()
{
    m_seen = false;
    m_last.clear();
    m_changes.clear();
}

FieldHistories::FieldHistories(int objects, int limit)
    : m_objects(std::max(1, objects))
    , m_limit(limit)
{ }

void FieldHistories::follow(const QString &key)
{
    if (m_histories.contains(key))
        return;
    m_histories.insert(key, FieldHistory(m_limit));
    m_order << key;
    while (m_order.size() > m_objects)
        m_histories.remove(m_order.takeFirst());
}

void FieldHistories::forget(const QString &key)
{
    m_histories.remove(key);
    m_order.removeAll(key);
}

int FieldHistories::observe(const QString &key, const nlohmann::json &object, const QDateTime &time)
{
    const auto found = m_histories.find(key);
    return found == m_histories.end() ? 0 : found->observe(object, time);
}

const FieldHistory *FieldHistories::history(const QString &key) const
{
    const auto found = m_histories.constFind(key);
    return found == m_histories.cend() ? nullptr : &found.value();
}

} // namespace reconscope::controller::fieldowner
