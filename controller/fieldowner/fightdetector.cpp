#include "controller/fieldowner/fightdetector.h"

#include "controller/fieldowner/fieldsv1.h"
#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace Qt::StringLiterals;

namespace reconscope::controller::fieldowner {

namespace {

// How many decoded fieldsV1 texts are kept (objects written alike share one).
constexpr qsizetype DecodedLimit = 4096;
// How many ownership changes of one field are kept (the newest, within the window).
constexpr std::size_t ChangesLimit = 64;

// Whether `path` is a leaf of `set`: nothing of the set lies below it.
bool isLeaf(const FieldSet &set, const Path &path)
{
    const FieldSet *node = &set;
    for (const PathElement &element : path) {
        node = &node->withPrefix(element);
        if (node->empty())
            return true;
    }
    return node->empty();
}

QString pathText(const Path &path)
{
    return QString::fromStdString(pathString(path));
}

bool isSpecPath(const Path &path)
{
    return path.size() >= 2 && path.front().kind == PathElement::Kind::Field
        && path.front().name == "spec";
}

// The manager names and fieldsV1 texts of a version, in order: when two versions give the same
// list, no ownership moved between them.
std::vector<std::pair<QString, QString>>
ownershipText(const QList<models::ManagedFieldsEntry> &entries)
{
    std::vector<std::pair<QString, QString>> out;
    out.reserve(entries.size());
    for (const auto &entry : entries)
        out.emplace_back(entry.manager, entry.fieldsV1);
    return out;
}

// fieldOwnersOf() with the decoding of a text given.
template<typename Decode>
FieldOwners ownersWith(const QList<models::ManagedFieldsEntry> &entries, Decode decode)
{
    FieldOwners owners;
    for (const auto &entry : entries) {
        if (entry.fieldsV1.isEmpty()
            || (!entry.fieldsType.isEmpty() && entry.fieldsType != u"FieldsV1"_s))
            continue;
        const std::shared_ptr<const FieldSet> set = decode(entry.fieldsV1);
        if (!set)
            continue;
        FieldSet &owned = owners[entry.manager];
        owned = owned.empty() ? *set : owned.unite(*set);
    }
    return owners;
}

std::shared_ptr<const FieldSet> decodeText(const QString &fieldsV1)
{
    const auto json = nlohmann::json::parse(fieldsV1.toStdString(), nullptr, false);
    if (json.is_discarded())
        return nullptr;
    auto read = decodeFieldsV1(json);
    return read ? std::make_shared<const FieldSet>(std::move(read.value())) : nullptr;
}

// The managers that wrote the version `after` follows `before` with: those with an entry (its
// operation, subresource, time or fields) that the previous version did not have; when none has
// (times are whole seconds, so a manager writing twice in one second leaves its entry as it was),
// those whose entries carry the newest time of the version.
std::set<QString> writersBetween(const QList<models::ManagedFieldsEntry> &before,
                                 const QList<models::ManagedFieldsEntry> &after)
{
    std::set<QString> writers;
    for (const auto &entry : after) {
        if (!before.contains(entry))
            writers.insert(entry.manager);
    }
    if (!writers.empty())
        return writers;
    QDateTime newest;
    for (const auto &entry : after) {
        if (entry.time.isValid() && (!newest.isValid() || entry.time > newest))
            newest = entry.time;
    }
    for (const auto &entry : after) {
        if (newest.isValid() && entry.time == newest)
            writers.insert(entry.manager);
    }
    return writers;
}

} // namespace

FieldOwners fieldOwnersOf(const QList<models::ManagedFieldsEntry> &entries)
{
    return ownersWith(entries, decodeText);
}

QList<SpecOwnership> specFieldsOfStatusWriters(const QList<models::ManagedFieldsEntry> &entries,
                                               const FieldOwners &owners,
                                               const QStringList &observations)
{
    std::set<QString> writers;
    for (const auto &entry : entries) {
        if (entry.subresource == u"status"_s)
            writers.insert(entry.manager);
    }
    for (const auto &[manager, owned] : owners) {
        bool writes = !owned.withPrefix(PathElement::field("status")).empty();
        owned.forEach(
            [&](const Path &path) { writes = writes || observations.contains(pathText(path)); });
        if (writes)
            writers.insert(manager);
    }
    QList<SpecOwnership> out;
    for (const QString &writer : writers) {
        const auto owned = owners.find(writer);
        if (owned == owners.end())
            continue;
        owned->second.forEach([&](const Path &path) {
            if (isSpecPath(path) && isLeaf(owned->second, path))
                out.append({ writer, pathText(path) });
        });
    }
    return out;
}

double Fight::perMinute() const
{
    const qint64 span = first.isValid() && last.isValid() ? first.msecsTo(last) : 0;
    return span > 0 ? changes * 60'000.0 / double(span) : 0.0;
}

QString Fight::kindName() const
{
    return kind == Kind::Alternating ? u"alternating-owners"_s : u"status-writer-owns-spec"_s;
}

QString Fight::describe() const
{
    if (kind == Kind::StatusWriterOwnsSpec)
        return u"%1: written by \"%2\", which also writes /status (the controller writing "
               "desired state)"_s.arg(field, managerA);
    const qint64 seconds = first.isValid() && last.isValid() ? first.secsTo(last) : 0;
    return u"%1: \"%2\" and \"%3\" took it from each other %4 times in %5 s (%6/min)"_s
        .arg(field, managerA, managerB)
        .arg(changes)
        .arg(seconds)
        .arg(perMinute(), 0, 'f', 1);
}

nlohmann::json Fight::toJson() const
{
    nlohmann::json managers = nlohmann::json::array();
    managers.push_back(managerA.toStdString());
    if (!managerB.isEmpty())
        managers.push_back(managerB.toStdString());
    nlohmann::json out = {
        { "type", "fight" },
        { "kind", kindName().toStdString() },
        { "object", object.toStdString() },
        { "field", field.toStdString() },
        { "managers", managers },
        { "changes", changes },
        { "first", models::formatRfc3339(first).toStdString() },
        { "last", models::formatRfc3339(last).toStdString() },
        { "perMinute", perMinute() },
    };
    return out;
}

FightDetector::FightDetector(FightSettings settings)
    : m_settings(settings)
{ }

FightDetector::~FightDetector() = default;

FightDetector::Owners FightDetector::ownersOf(const QList<models::ManagedFieldsEntry> &entries)
{
    return ownersWith(entries, [this](const QString &fieldsV1) {
        if (const auto found = m_decoded.constFind(fieldsV1); found != m_decoded.cend())
            return found.value();
        std::shared_ptr<const FieldSet> set = decodeText(fieldsV1);
        if (m_decoded.size() >= DecodedLimit)
            m_decoded.clear();
        m_decoded.insert(fieldsV1, set);
        return set;
    });
}

QList<Fight> FightDetector::observe(const QString &key,
                                    const QList<models::ManagedFieldsEntry> &entries,
                                    const QDateTime &time)
{
    QList<Fight> started;
    auto found = m_objects.find(key);
    if (found == m_objects.end()) {
        ObjectState &state = m_objects[key];
        state.entries = entries;
        if (!entries.isEmpty())
            checkStatusWriter(state, key, entries, ownersOf(entries), time, &started);
        return started;
    }
    ObjectState &state = found.value();
    if (ownershipText(state.entries) == ownershipText(entries)) {
        state.entries = entries;
        return started;
    }
    const Owners before = ownersOf(state.entries);
    const Owners after = ownersOf(entries);
    const std::set<QString> writers = writersBetween(state.entries, entries);
    state.entries = entries;
    recordChanges(state, key, before, after, writers, time, &started);
    checkStatusWriter(state, key, entries, after, time, &started);
    return started;
}

void FightDetector::recordChanges(ObjectState &state,
                                  const QString &key,
                                  const Owners &before,
                                  const Owners &after,
                                  const std::set<QString> &writers,
                                  const QDateTime &time,
                                  QList<Fight> *started)
{
    static const FieldSet none;
    auto ownedAfter = [&](const QString &manager, const Path &path) {
        const auto found = after.find(manager);
        return found != after.end() && found->second.has(path);
    };
    auto record = [&](const Path &path, const QString &from, const QString &to) {
        const QString field = pathText(path);
        FieldHistory &history = state.fields[field];
        history.changes.push_back({ time, from, to });
        while (history.changes.size() > ChangesLimit
               || history.changes.front().time.msecsTo(time) > m_settings.windowMs)
            history.changes.pop_front();
        const auto fight = alternation(key, field, history, time);
        if (fight && !history.reported)
            started->append(*fight);
        history.reported = fight.has_value();
    };
    // (Named members, not structured bindings: the lambdas below capture them.)
    for (const auto &ownership : after) {
        const QString &manager = ownership.first;
        const FieldSet &owned = ownership.second;
        const auto had = before.find(manager);
        const FieldSet gained = owned.difference(had == before.end() ? none : had->second);
        gained.forEach([&](const Path &path) {
            if (!isLeaf(owned, path))
                return;
            bool taken = false;
            for (const auto &[previous, previouslyOwned] : before) {
                if (previous == manager || !previouslyOwned.has(path))
                    continue;
                taken = true;
                if (!ownedAfter(previous, path)) // shared now: not taken
                    record(path, previous, manager);
            }
            if (taken)
                return;
            // Set again by the manager another one had removed it from: the field goes back.
            const auto history = state.fields.find(pathText(path));
            if (history != state.fields.end() && !history->second.changes.empty()) {
                const Change &last = history->second.changes.back();
                if (last.from == manager && last.to != manager && !ownedAfter(last.to, path))
                    record(path, last.to, manager);
            }
        });
    }
    // A field removed from the object (owned by nobody now) by the one other manager that wrote
    // this version: taken from its owner, as a GitOps apply of a manifest without it takes it.
    for (const auto &ownership : before) {
        const QString &previous = ownership.first;
        const FieldSet &previouslyOwned = ownership.second;
        std::vector<QString> removers;
        for (const QString &writer : writers) {
            if (writer != previous)
                removers.push_back(writer);
        }
        if (removers.size() != 1)
            continue;
        previouslyOwned.forEach([&](const Path &path) {
            if (!isLeaf(previouslyOwned, path))
                return;
            for (const auto &[manager, owned] : after) {
                if (owned.has(path))
                    return;
            }
            record(path, previous, removers.front());
        });
    }
}

void FightDetector::checkStatusWriter(ObjectState &state,
                                      const QString &key,
                                      const QList<models::ManagedFieldsEntry> &entries,
                                      const Owners &after,
                                      const QDateTime &time,
                                      QList<Fight> *started)
{
    std::map<QString, Fight> now;
    for (const SpecOwnership &owned : specFieldsOfStatusWriters(entries, after)) {
        const QString id = owned.manager + u'\n' + owned.field;
        const auto known = state.specOwnedByStatusWriter.find(id);
        if (known != state.specOwnedByStatusWriter.end()) {
            now.emplace(id, known->second);
            continue;
        }
        Fight fight;
        fight.kind = Fight::Kind::StatusWriterOwnsSpec;
        fight.object = key;
        fight.field = owned.field;
        fight.managerA = owned.manager;
        fight.first = fight.last = time;
        now.emplace(id, fight);
        started->append(fight);
    }
    state.specOwnedByStatusWriter = std::move(now);
}

std::optional<Fight> FightDetector::alternation(const QString &key,
                                                const QString &field,
                                                const FieldHistory &history,
                                                const QDateTime &now) const
{
    if (history.changes.empty())
        return std::nullopt;
    // The pair of the newest change, and its changes within the window ending now.
    const Change &newest = history.changes.back();
    const QString a = std::min(newest.from, newest.to);
    const QString b = std::max(newest.from, newest.to);
    Fight fight;
    for (const Change &change : history.changes) {
        if (change.time.msecsTo(now) > m_settings.windowMs)
            continue;
        if (std::min(change.from, change.to) != a || std::max(change.from, change.to) != b)
            continue;
        if (!fight.first.isValid())
            fight.first = change.time;
        fight.last = change.time;
        ++fight.changes;
    }
    if (fight.changes < m_settings.changes)
        return std::nullopt;
    fight.kind = Fight::Kind::Alternating;
    fight.object = key;
    fight.field = field;
    fight.managerA = a;
    fight.managerB = b;
    return fight;
}

void FightDetector::remove(const QString &key)
{
    m_objects.remove(key);
}

void FightDetector::clear()
{
    m_objects.clear();
    m_decoded.clear();
}

QList<Fight> FightDetector::currentFor(const QString &key, const QDateTime &now) const
{
    QList<Fight> out;
    const auto found = m_objects.constFind(key);
    if (found == m_objects.cend())
        return out;
    for (const auto &[field, history] : found->fields) {
        if (auto fight = alternation(key, field, history, now))
            out.append(*fight);
    }
    for (const auto &[id, fight] : found->specOwnedByStatusWriter)
        out.append(fight);
    return out;
}

QList<Fight> FightDetector::current(const QDateTime &now) const
{
    QList<Fight> out;
    for (auto it = m_objects.cbegin(); it != m_objects.cend(); ++it)
        out += currentFor(it.key(), now);
    std::sort(out.begin(), out.end(), [](const Fight &x, const Fight &y) {
        if (x.changes != y.changes)
            return x.changes > y.changes;
        if (x.object != y.object)
            return x.object < y.object;
        return x.field < y.field;
    });
    return out;
}

} // namespace reconscope::controller::fieldowner
