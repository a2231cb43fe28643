#include "controller/record/recordingplayer.h"

#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

#include <QTimer>

using namespace Qt::StringLiterals;
using Json = nlohmann::json;

namespace reconscope::controller::record {

namespace {

const apimachinery::ResourceRef Crds{
    u"apiextensions.k8s.io"_s, u"v1"_s, u"customresourcedefinitions"_s, false
};
const apimachinery::ResourceRef Namespaces{ {}, u"v1"_s, u"namespaces"_s, false };
// How long a CRD may take to be Established: attempts, a tenth of a second apart.
constexpr int EstablishedAttempts = 100;

Json parse(const QByteArray &bytes)
{
    return Json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

// The object as a client sends it to another cluster: without what the server sets and without
// owner references (their uids are the recorded cluster's); with its status or without.
Json portable(Json object, bool withStatus)
{
    if (!object.is_object())
        return Json::object();
    if (!withStatus)
        object.erase("status");
    auto metadata = object.find("metadata");
    if (metadata != object.end() && metadata->is_object()) {
        for (const char *set : { "uid",
                                 "resourceVersion",
                                 "creationTimestamp",
                                 "deletionTimestamp",
                                 "deletionGracePeriodSeconds",
                                 "generation",
                                 "managedFields",
                                 "selfLink",
                                 "ownerReferences" })
            metadata->erase(set);
    }
    return object;
}

QString metadataString(const Json &object, const char *member)
{
    return models::jsonString(models::jsonMember(object, "metadata"), member);
}

// A status as far behind the object's generation here as it was behind the recorded one.
void shiftObservedGenerations(Json &status, qint64 by)
{
    const auto shift = [by](Json &holder) {
        auto observed = holder.find("observedGeneration");
        if (observed != holder.end() && observed->is_number_integer())
            *observed = std::max<qint64>(0, observed->get<qint64>() - by);
    };
    if (!status.is_object() || by == 0)
        return;
    shift(status);
    auto conditions = status.find("conditions");
    if (conditions == status.end() || !conditions->is_array())
        return;
    for (Json &condition : *conditions) {
        if (condition.is_object())
            shift(condition);
    }
}

bool established(const Json &crd)
{
    const Json &conditions = models::jsonMember(models::jsonMember(crd, "status"), "conditions");
    if (!conditions.is_array())
        return false;
    for (const Json &condition : conditions) {
        if (models::jsonString(condition, "type") == u"Established"_s)
            return models::jsonString(condition, "status") == u"True"_s;
    }
    return false;
}

} // namespace

RecordingPlayer::RecordingPlayer(kube::RestClient *client,
                                 std::unique_ptr<RecordSource> source,
                                 double speed,
                                 QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_source(std::move(source))
    , m_speed(speed)
{ }

RecordingPlayer::~RecordingPlayer() = default;

void RecordingPlayer::start()
{
    QTimer::singleShot(0, this, &RecordingPlayer::pump);
}

void RecordingPlayer::pump()
{
    while (!m_done) {
        auto next = m_source->next();
        if (!next) {
            fail(next.error().message);
            return;
        }
        if (!next.value()) {
            m_done = true;
            emit finished(QString());
            return;
        }
        const Record &record = *next.value();
        if (record.type == RecordType::Note)
            continue;
        m_changes.clear();
        m_nextChange = 0;
        m_state.apply(record, &m_changes);
        m_changes.removeIf([this](const ReplayChange &change) {
            return m_state.resources().value(change.resource).isEvents();
        });
        if (m_changes.isEmpty())
            continue;
        if (!m_firstTime) {
            m_firstTime = record.time;
            m_clock.start();
        }
        if (m_speed > 0) {
            const qint64 dueMs = qint64(double(record.time - *m_firstTime) / 1000.0 / m_speed);
            if (const qint64 wait = dueMs - m_clock.elapsed(); wait > 0) {
                QTimer::singleShot(wait, this, &RecordingPlayer::playChanges);
                return;
            }
        }
        playChanges();
        return;
    }
}

void RecordingPlayer::playChanges()
{
    if (m_done)
        return;
    if (m_nextChange >= m_changes.size()) {
        pump();
        return;
    }
    const ReplayChange change = m_changes[m_nextChange++];
    const qint64 writesBefore = m_writes;
    play(change, [this, change, writesBefore] {
        ++m_changesPlayed;
        // Queued: a change that needs no write must not deepen the stack.
        const auto resume = [this] {
            QMetaObject::invokeMethod(this, &RecordingPlayer::playChanges, Qt::QueuedConnection);
        };
        if (m_afterChange)
            m_afterChange(change, m_writes - writesBefore, resume);
        else
            resume();
    });
}

void RecordingPlayer::play(const ReplayChange &change, Done done)
{
    ensureResource(change.resource, [this, change, done] {
        if (change.type == ReplayChange::Type::Delete)
            remove(change, done);
        else
            upsert(change, done);
    });
}

void RecordingPlayer::upsert(const ReplayChange &change, Done done)
{
    const Json object = parse(change.object);
    const QString namespace_ = metadataString(object, "namespace");
    ensureNamespace(namespace_, [this, change, object, namespace_, done] {
        if (m_live.contains(liveKey(change))) {
            writeSpec(change, false, done);
            return;
        }
        ++m_writes;
        const auto &resource = m_state.resources()[change.resource];
        m_client->create(resource.ref(),
                         namespace_,
                         portable(object, !hasStatusSubresource(change.resource)),
                         [this, change, done](kube::RestClient::JsonResult answer) {
                             if (!answer && answer.error().isAlreadyExists()) {
                                 // There before the play: changed to the recorded object instead.
                                 refresh(change,
                                         [this, change, done] { writeSpec(change, true, done); });
                                 return;
                             }
                             if (!took(change, u"create"_s, answer))
                                 return;
                             writeStatus(change, false, done);
                         });
    });
}

void RecordingPlayer::writeSpec(const ReplayChange &change, bool retried, Done done)
{
    const auto live = m_live.constFind(liveKey(change));
    if (live == m_live.constEnd()) {
        upsert(change, done); // gone meanwhile: made again
        return;
    }
    Json object = portable(parse(change.object), !hasStatusSubresource(change.resource));
    object["metadata"]["resourceVersion"] = live->resourceVersion.toStdString();
    ++m_writes;
    const auto &resource = m_state.resources()[change.resource];
    m_client->update(resource.ref(),
                     metadataString(object, "namespace"),
                     metadataString(object, "name"),
                     object,
                     [this, change, retried, done](kube::RestClient::JsonResult answer) {
                         if (!answer && !retried
                             && (answer.error().isConflict() || answer.error().isNotFound())) {
                             refresh(change,
                                     [this, change, done] { writeSpec(change, true, done); });
                             return;
                         }
                         if (!took(change, u"update"_s, answer))
                             return;
                         writeStatus(change, false, done);
                     });
}

void RecordingPlayer::writeStatus(const ReplayChange &change, bool retried, Done done)
{
    const Json recorded = parse(change.object);
    const auto live = m_live.constFind(liveKey(change));
    if (!hasStatusSubresource(change.resource) || live == m_live.constEnd()
        || (!recorded.contains("status") && !live->status)) {
        beginDeletion(change, done);
        return;
    }
    Json object = portable(recorded, true);
    object["metadata"]["resourceVersion"] = live->resourceVersion.toStdString();
    const qint64 recordedGeneration
        = models::jsonInteger(models::jsonMember(recorded, "metadata"), "generation");
    if (recordedGeneration > 0 && live->generation > 0)
        shiftObservedGenerations(object["status"], recordedGeneration - live->generation);
    ++m_writes;
    const auto &resource = m_state.resources()[change.resource];
    m_client->update(
        resource.ref(),
        metadataString(object, "namespace"),
        metadataString(object, "name"),
        object,
        [this, change, retried, done](kube::RestClient::JsonResult answer) {
            if (!answer && !retried && answer.error().isConflict()) {
                refresh(change, [this, change, done] { writeStatus(change, true, done); });
                return;
            }
            if (!took(change, u"status update"_s, answer))
                return;
            beginDeletion(change, done);
        },
        u"status"_s);
}

void RecordingPlayer::beginDeletion(const ReplayChange &change, Done done)
{
    const Json recorded = parse(change.object);
    const auto live = m_live.constFind(liveKey(change));
    if (metadataString(recorded, "deletionTimestamp").isEmpty() || live == m_live.constEnd()
        || live->deleting) {
        done();
        return;
    }
    ++m_writes;
    const auto &resource = m_state.resources()[change.resource];
    m_client->remove(resource.ref(),
                     metadataString(recorded, "namespace"),
                     metadataString(recorded, "name"),
                     {},
                     [this, change, done](kube::RestClient::JsonResult answer) {
                         if (took(change, u"delete"_s, answer))
                             done();
                     });
}

void RecordingPlayer::remove(const ReplayChange &change, Done done)
{
    const auto live = m_live.constFind(liveKey(change));
    if (live == m_live.constEnd()) {
        done(); // never made here, or gone already
        return;
    }
    const QString namespace_
        = change.key.contains(u'/') ? change.key.section(u'/', 0, 0) : QString();
    const QString name = change.key.section(u'/', -1);
    const auto &resource = m_state.resources()[change.resource];
    const auto deleteIt = [this, change, namespace_, name, resource, done] {
        const auto still = m_live.constFind(liveKey(change));
        if (still == m_live.constEnd() || still->deleting) {
            m_live.remove(liveKey(change));
            done();
            return;
        }
        ++m_writes;
        m_client->remove(resource.ref(),
                         namespace_,
                         name,
                         {},
                         [this, change, done](kube::RestClient::JsonResult answer) {
                             if ((answer || !answer.error().isNotFound())
                                 && !took(change, u"delete"_s, answer))
                                 return;
                             m_live.remove(liveKey(change));
                             done();
                         });
    };
    if (!live->finalizers) {
        deleteIt();
        return;
    }
    ++m_writes;
    m_client->patch(resource.ref(),
                    namespace_,
                    name,
                    apimachinery::PatchType::Merge,
                    R"({"metadata":{"finalizers":null}})",
                    [this, change, deleteIt](kube::RestClient::JsonResult answer) {
                        if (took(change, u"finalizer removal"_s, answer))
                            deleteIt();
                    });
}

void RecordingPlayer::refresh(const ReplayChange &change, Done then)
{
    const Json object = parse(change.object);
    const QString name = change.type == ReplayChange::Type::Delete ? change.key.section(u'/', -1)
                                                                   : metadataString(object, "name");
    const QString namespace_
        = change.key.contains(u'/') ? change.key.section(u'/', 0, 0) : QString();
    const auto &resource = m_state.resources()[change.resource];
    m_client->get(resource.ref(),
                  namespace_,
                  name,
                  [this, change, then](kube::RestClient::JsonResult answer) {
                      if (!answer && answer.error().isNotFound()) {
                          m_live.remove(liveKey(change));
                          then();
                          return;
                      }
                      if (took(change, u"read"_s, answer))
                          then();
                  });
}

void RecordingPlayer::ensureResource(int resource, Done done)
{
    const RecordedResource &recorded = m_state.resources()[resource];
    const QString name = recorded.qualifiedName();
    const QByteArray crdBytes = m_state.crdOf(recorded);
    if (m_readyResources.contains(name) || crdBytes.isEmpty()) {
        done();
        return;
    }
    const Json crd = portable(parse(crdBytes), false);
    const QString crdName = metadataString(crd, "name");
    ++m_writes;
    m_client->create(
        Crds, {}, crd, [this, name, crdName, done](kube::RestClient::JsonResult answer) {
            if (!answer && !answer.error().isAlreadyExists()) {
                fail(u"the CRD %1 could not be installed: %2"_s.arg(crdName,
                                                                    answer.error().toString()));
                return;
            }
            waitEstablished(crdName, EstablishedAttempts, [this, name, done] {
                m_readyResources.insert(name);
                done();
            });
        });
}

void RecordingPlayer::waitEstablished(const QString &crdName, int attemptsLeft, Done done)
{
    m_client->get(Crds,
                  {},
                  crdName,
                  [this, crdName, attemptsLeft, done](kube::RestClient::JsonResult answer) {
                      if (answer && established(answer.value())) {
                          done();
                      } else if (attemptsLeft <= 1) {
                          fail(u"the CRD %1 was not Established within %2 s"_s.arg(
                              crdName, EstablishedAttempts / 10));
                      } else {
                          QTimer::singleShot(100, this, [this, crdName, attemptsLeft, done] {
                              waitEstablished(crdName, attemptsLeft - 1, done);
                          });
                      }
                  });
}

void RecordingPlayer::ensureNamespace(const QString &namespace_, Done done)
{
    if (namespace_.isEmpty() || m_namespaces.contains(namespace_)) {
        done();
        return;
    }
    const Json object{ { "apiVersion", "v1" },
                       { "kind", "Namespace" },
                       { "metadata", { { "name", namespace_.toStdString() } } } };
    ++m_writes;
    m_client->create(
        Namespaces, {}, object, [this, namespace_, done](kube::RestClient::JsonResult answer) {
            if (!answer && !answer.error().isAlreadyExists()) {
                fail(u"the namespace %1 could not be created: %2"_s.arg(namespace_,
                                                                        answer.error().toString()));
                return;
            }
            m_namespaces.insert(namespace_);
            done();
        });
}

bool RecordingPlayer::took(const ReplayChange &change,
                           const QString &write,
                           const kube::RestClient::JsonResult &answer)
{
    if (!answer) {
        fail(
            u"%1: the %2 was refused: %3"_s.arg(liveKey(change), write, answer.error().toString()));
        return false;
    }
    const Json &object = answer.value();
    if (models::jsonString(object, "kind") == u"Status") {
        m_live.remove(liveKey(change)); // deleted at once
        return true;
    }
    const Json &finalizers
        = models::jsonMember(models::jsonMember(object, "metadata"), "finalizers");
    Live &live = m_live[liveKey(change)];
    live.resourceVersion = metadataString(object, "resourceVersion");
    live.generation = models::jsonInteger(models::jsonMember(object, "metadata"), "generation");
    live.status = !models::jsonMember(object, "status").is_null();
    live.finalizers = finalizers.is_array() && !finalizers.empty();
    live.deleting = !metadataString(object, "deletionTimestamp").isEmpty();
    return true;
}

void RecordingPlayer::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    emit finished(message);
}

QString RecordingPlayer::liveKey(const ReplayChange &change) const
{
    return m_state.resources()[change.resource].qualifiedName() + u' ' + change.key;
}

bool RecordingPlayer::hasStatusSubresource(int resource) const
{
    const RecordedResource &recorded = m_state.resources()[resource];
    const QByteArray crdBytes = m_state.crdOf(recorded);
    if (crdBytes.isEmpty())
        return true; // the built-in kinds a recording holds (Deployments, Pods) have it
    const Json crd = parse(crdBytes); // the members below refer into it
    const Json &versions = models::jsonMember(models::jsonMember(crd, "spec"), "versions");
    if (!versions.is_array())
        return false;
    for (const Json &version : versions) {
        if (models::jsonString(version, "name") == recorded.version)
            return models::jsonMember(models::jsonMember(version, "subresources"), "status")
                .is_object();
    }
    return false;
}

} // namespace reconscope::controller::record
