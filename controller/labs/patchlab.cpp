#include "controller/labs/patchlab.h"
#include "models/jsonfields.h"
#include "models/objectmetaview.h"

#include <spdlog/spdlog.h>

#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

using apimachinery::ApiError;
using apimachinery::PatchType;

using kube::RestClient;
using kube::WatchEvent;

// ---- kubectl ----

QString shellQuote(const QString &word)
{
    static const QString safe = u"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "-_./=:,@%+"_s;
    if (!word.isEmpty()
        && std::all_of(word.begin(), word.end(), [](QChar c) { return safe.contains(c); }))
        return word;
    QString quoted = word;
    quoted.replace(u'\'', u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

QString kubectlCommand(const PatchRequest &request, const QByteArray &body)
{
    QStringList words{ u"kubectl"_s, u"patch"_s, request.qualifiedResource, request.name };
    if (request.resource.namespaced && !request.namespace_.isEmpty())
        words << u"-n"_s << request.namespace_;
    if (request.target == PatchTarget::Status)
        words << u"--subresource=status"_s;
    words << u"--type=%1"_s.arg(patchTypeName(request.type)) << u"-p"_s;
    QStringList quoted;
    for (const auto &w : std::as_const(words))
        quoted << shellQuote(w);
    quoted << shellQuote(QString::fromUtf8(body));
    return quoted.join(u' ');
}

// ---- comparison ----

namespace {

json metadataOf(const json &object)
{
    json meta = models::jsonMember(object, "metadata");
    if (!meta.is_object())
        return json::object();
    for (const char *volatileKey : { "resourceVersion", "generation", "managedFields" })
        meta.erase(volatileKey);
    return meta;
}

bool patchTouchesStatus(const PatchRequest &request)
{
    if (request.type == PatchType::Merge)
        return request.patch.is_object() && request.patch.contains("status");
    if (!request.patch.is_array())
        return false;
    return std::any_of(request.patch.begin(), request.patch.end(), [](const json &op) {
        const std::string path = op.value("path", std::string());
        return path == "/status" || path.rfind("/status/", 0) == 0;
    });
}

bool patchTouchesSpec(const PatchRequest &request)
{
    if (request.type == PatchType::Merge)
        return request.patch.is_object()
            && std::any_of(request.patch.items().begin(),
                           request.patch.items().end(),
                           [](const auto &item) {
                               return item.key() != "status" && item.key() != "metadata";
                           });
    if (!request.patch.is_array())
        return false;
    return std::any_of(request.patch.begin(), request.patch.end(), [](const json &op) {
        const std::string path = op.value("path", std::string());
        return path != "/status" && path.rfind("/status/", 0) != 0
            && path.rfind("/metadata", 0) != 0;
    });
}

} // namespace

PatchComparison compareObjects(const json &before, const json &after)
{
    PatchComparison c;
    c.specDiff = json::diff(models::jsonMember(before, "spec"), models::jsonMember(after, "spec"));
    c.statusDiff
        = json::diff(models::jsonMember(before, "status"), models::jsonMember(after, "status"));
    c.metadataDiff = json::diff(metadataOf(before), metadataOf(after));
    c.generationBefore = models::ObjectMetaView(before).generation();
    c.generationAfter = models::ObjectMetaView(after).generation();
    c.resourceVersionBefore = models::ObjectMetaView(before).resourceVersion();
    c.resourceVersionAfter = models::ObjectMetaView(after).resourceVersion();
    return c;
}

QStringList
verdictLines(const PatchRequest &request, const PatchComparison &comparison, bool succeeded)
{
    const auto changed = [](bool yes) {
        return yes ? u"changed"_s : u"unchanged"_s;
    };
    QStringList lines;
    lines << u"spec %1, generation %2, status %3"_s.arg(changed(comparison.specChanged()),
                                                        changed(comparison.generationChanged()),
                                                        changed(comparison.statusChanged()));
    if (comparison.generationChanged())
        lines << u"generation %1 → %2"_s.arg(comparison.generationBefore)
                     .arg(comparison.generationAfter);
    if (comparison.resourceVersionChanged())
        lines << u"resourceVersion %1 → %2"_s.arg(comparison.resourceVersionBefore,
                                                  comparison.resourceVersionAfter);
    else
        lines << u"resourceVersion unchanged (%1)"_s.arg(comparison.resourceVersionBefore);
    if (!succeeded) {
        lines << u"the request failed: nothing was written"_s;
        return lines;
    }
    if (!comparison.resourceVersionChanged())
        lines << u"no-op: the patched object equals the stored one, nothing was written and no "
                 "watch event was sent"_s;
    const bool touchesStatus = patchTouchesStatus(request);
    const bool touchesSpec = patchTouchesSpec(request);
    if (request.target == PatchTarget::Main && touchesStatus && request.statusSubresource
        && !comparison.statusChanged())
        lines << u"status in the patch was ignored: the CRD has a status subresource, so the "
                 "main resource keeps the stored status (write it through /status)"_s;
    if (request.target == PatchTarget::Main && touchesStatus && !request.statusSubresource
        && comparison.statusChanged())
        lines << u"status changed through the main resource: this CRD version has no status "
                 "subresource, so status is an ordinary field"_s;
    if (request.target == PatchTarget::Status && touchesSpec && !comparison.specChanged())
        lines << u"spec in the patch was ignored: /status only takes .status"_s;
    if (request.target == PatchTarget::Status && comparison.statusChanged()
        && !comparison.generationChanged())
        lines << u"a /status write never bumps the generation: the reconciler sees no new "
                 "desired state"_s;
    if (comparison.specChanged() && comparison.generationChanged())
        lines << u"spec changed: the generation was bumped, the reconciler will act on it"_s;
    return lines;
}

// ---- reaction ----

QString Reaction::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::NotWatched:
        return u"not watched"_s;
    case Outcome::Watching:
        return u"watching"_s;
    case Outcome::Overwritten:
        return u"overwritten"_s;
    case Outcome::Kept:
        return u"kept"_s;
    case Outcome::Deleted:
        return u"deleted"_s;
    case Outcome::Failed:
        return u"failed"_s;
    }
    return {};
}

QString Reaction::text() const
{
    switch (outcome) {
    case Outcome::NotWatched:
        return u"reaction not watched"_s;
    case Outcome::Watching:
        return u"watching for the reconciler's reaction (up to %1 s)…"_s.arg(timeoutMs / 1000.0);
    case Outcome::Overwritten:
        return u"status overwritten after %1 ms (write at resourceVersion %2): %3"_s.arg(afterMs)
            .arg(writer, QString::fromStdString(statusDiff.dump()));
    case Outcome::Kept:
        return u"status kept: nothing overwrote it within %1 ms"_s.arg(afterMs);
    case Outcome::Deleted:
        return u"the object was deleted after %1 ms"_s.arg(afterMs);
    case Outcome::Failed:
        return u"watching failed after %1 ms: %2"_s.arg(afterMs).arg(writer);
    }
    return {};
}

// ---- experiment ----

json PatchExperiment::statusJson() const
{
    if (!error)
        return json();
    json status = { { "kind", "Status" },
                    { "apiVersion", "v1" },
                    { "status", "Failure" },
                    { "message", error->message.toStdString() },
                    { "reason", error->reason.toStdString() },
                    { "code", error->code } };
    if (!error->name.isEmpty() || !error->kind.isEmpty()) {
        status["details"] = { { "name", error->name.toStdString() },
                              { "group", error->group.toStdString() },
                              { "kind", error->kind.toStdString() } };
    }
    return status;
}

json PatchExperiment::toJson() const
{
    json verdictsJson = json::array();
    for (const auto &line : verdicts)
        verdictsJson.push_back(line.toStdString());
    json reactionJson = { { "outcome", Reaction::outcomeName(reaction.outcome).toStdString() },
                          { "text", reaction.text().toStdString() } };
    if (reaction.afterMs >= 0)
        reactionJson["afterMs"] = reaction.afterMs;
    if (!reaction.statusDiff.empty())
        reactionJson["statusDiff"] = reaction.statusDiff;
    json out = {
        { "id", id },
        { "startedAt", startedAt.toUTC().toString(Qt::ISODateWithMs).toStdString() },
        { "object",
          { { "resource", request.qualifiedResource.toStdString() },
            { "namespace", request.namespace_.toStdString() },
            { "name", request.name.toStdString() } } },
        { "target", request.target == PatchTarget::Status ? "status" : "main" },
        { "patchType", patchTypeName(request.type).toStdString() },
        { "precondition", preconditionName(request.precondition).toStdString() },
        { "request",
          { { "method", method.toStdString() },
            { "url", url.toStdString() },
            { "contentType", patchContentType(request.type).toStdString() },
            { "body", json::parse(body.toStdString(), nullptr, false) } } },
        { "kubectl", kubectl.toStdString() },
        { "httpCode", httpCode },
        { "status", statusJson() },
        { "diff", { { "spec", comparison.specDiff }, { "status", comparison.statusDiff } } },
        { "generation",
          { { "before", comparison.generationBefore }, { "after", comparison.generationAfter } } },
        { "resourceVersion",
          { { "before", comparison.resourceVersionBefore.toStdString() },
            { "after", comparison.resourceVersionAfter.toStdString() } } },
        { "verdicts", verdictsJson },
        { "reaction", reactionJson },
    };
    if (!preconditionResourceVersion.isEmpty())
        out["preconditionResourceVersion"] = preconditionResourceVersion.toStdString();
    return out;
}

// ---- the lab ----

PatchLab::PatchLab(RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_reactionTimer(new QTimer(this))
{
    m_reactionTimer->setSingleShot(true);
    connect(
        m_reactionTimer, &QTimer::timeout, this, [this] { endReaction(Reaction::Outcome::Kept); });
}

PatchLab::~PatchLab()
{
    if (m_watch)
        m_watch->stop();
}

void PatchLab::setClient(RestClient *client)
{
    if (m_busy) {
        // The old client's answers will not come: end the experiment where it stands.
        if (PatchExperiment *e = current(); e && !e->finished) {
            e->error = ApiError::make(ApiError::Category::Cancelled,
                                      u"the console switched to another cluster or context"_s);
            m_client = client;
            answer();
            return;
        }
        stopWatching();
    }
    m_client = client;
}

QString PatchLab::describe(const PatchRequest &request) const
{
    QString rv = request.precondition == Precondition::None ? QString() : request.resourceVersion;
    if (rv.isEmpty() && request.precondition == Precondition::Current)
        rv = u"<current>"_s;
    else if (rv.isEmpty() && request.precondition == Precondition::Stale)
        rv = u"<stale>"_s;
    const json body = withResourceVersion(request.patch, request.type, rv);
    const QString server = m_client ? m_client->config().server.toString() : QString();
    return u"PATCH %1%2\nContent-Type: %3\n\n%4"_s.arg(
        server,
        request.path(),
        QString::fromLatin1(patchContentType(request.type)),
        QString::fromStdString(body.dump(2)));
}

QByteArray PatchLab::bodyOf(const PatchRequest &request)
{
    const QString rv
        = request.precondition == Precondition::None ? QString() : request.resourceVersion;
    return QByteArray::fromStdString(withResourceVersion(request.patch, request.type, rv).dump());
}

const PatchExperiment *PatchLab::experiment(int id) const
{
    for (const auto &e : m_history) {
        if (e.id == id)
            return &e;
    }
    return nullptr;
}

PatchExperiment *PatchLab::current()
{
    for (auto &e : m_history) {
        if (e.id == m_currentId)
            return &e;
    }
    return nullptr;
}

void PatchLab::clearHistory()
{
    if (m_busy) {
        // keep the running experiment
        m_history.erase(
            std::remove_if(m_history.begin(),
                           m_history.end(),
                           [this](const PatchExperiment &e) { return e.id != m_currentId; }),
            m_history.end());
    } else {
        m_history.clear();
    }
    emit historyChanged();
}

QByteArray PatchLab::exportHistory() const
{
    json experiments = json::array();
    for (const auto &e : m_history)
        experiments.push_back(e.toJson());
    return QByteArray::fromStdString(json{ { "experiments", experiments } }.dump(2));
}

int PatchLab::run(const PatchRequest &request)
{
    if (m_busy || !m_client)
        return 0;
    PatchExperiment e;
    e.id = m_nextId++;
    e.startedAt = QDateTime::currentDateTimeUtc();
    e.request = request;
    e.url = m_client->config().server.toString() + request.path();
    m_history.append(e);
    m_currentId = e.id;
    m_busy = true;
    emit experimentStarted(e.id);
    emit historyChanged();
    spdlog::info("patch lab: experiment {} on {} {}/{} ({}, {} patch, precondition {})",
                 e.id,
                 request.qualifiedResource.toStdString(),
                 request.namespace_.toStdString(),
                 request.name.toStdString(),
                 targetName(request.target).toStdString(),
                 patchTypeName(request.type).toStdString(),
                 preconditionName(request.precondition).toStdString());
    const int id = e.id;
    m_client->get(request.resource, request.namespace_, request.name, [this, id](auto result) {
        if (id == m_currentId)
            handleBefore(std::move(result));
    });
    return id;
}

void PatchLab::handleBefore(RestClient::JsonResult result)
{
    PatchExperiment *e = current();
    if (!e)
        return;
    if (!result.ok()) {
        // Nothing to patch: report the read's failure as the experiment's answer.
        e->error = result.error();
        e->httpCode = result.error().code;
        e->body = QByteArray::fromStdString(e->request.patch.dump());
        e->kubectl = kubectlCommand(e->request, e->body);
        answer();
        return;
    }
    e->before = std::move(result.value());
    sendPatch();
}

void PatchLab::sendPatch()
{
    PatchExperiment *e = current();
    if (!e || !m_client)
        return;
    const QString rv = models::ObjectMetaView(e->before).resourceVersion();
    if (e->request.precondition != Precondition::None && !e->request.resourceVersion.isEmpty())
        e->preconditionResourceVersion = e->request.resourceVersion;
    else if (e->request.precondition == Precondition::Current)
        e->preconditionResourceVersion = rv;
    else if (e->request.precondition == Precondition::Stale)
        e->preconditionResourceVersion = staleResourceVersion(rv);
    e->body = QByteArray::fromStdString(
        withResourceVersion(e->request.patch, e->request.type, e->preconditionResourceVersion)
            .dump());
    e->kubectl = kubectlCommand(e->request, e->body);
    const int id = e->id;
    m_client->patch(
        e->request.resource,
        e->request.namespace_,
        e->request.name,
        e->request.type,
        e->body,
        [this, id](auto result) {
            if (id == m_currentId)
                handlePatched(std::move(result));
        },
        e->request.subresource());
}

void PatchLab::handlePatched(RestClient::JsonResult result)
{
    PatchExperiment *e = current();
    if (!e)
        return;
    if (result.ok()) {
        e->httpCode = 200; // PATCH answers 200 with the object
        e->after = std::move(result.value());
        answer();
        return;
    }
    e->error = result.error();
    e->httpCode = result.error().code;
    spdlog::warn("patch lab: experiment {}: {}", e->id, result.error().toString().toStdString());
    // Read the object again so that the comparison shows what the failed request left.
    const int id = e->id;
    m_client->get(e->request.resource, e->request.namespace_, e->request.name, [this, id](auto r) {
        if (id == m_currentId)
            handleAfterFailure(std::move(r));
    });
}

void PatchLab::handleAfterFailure(RestClient::JsonResult result)
{
    PatchExperiment *e = current();
    if (!e)
        return;
    e->after = result.ok() ? std::move(result.value()) : e->before;
    answer();
}

void PatchLab::answer()
{
    PatchExperiment *e = current();
    if (!e)
        return;
    e->finished = true;
    const bool ok = !e->error.has_value();
    if (!e->before.is_null()) {
        e->comparison = compareObjects(e->before, e->after.is_null() ? e->before : e->after);
        e->verdicts = verdictLines(e->request, e->comparison, ok);
    }
    if (e->error)
        e->verdicts.prepend(e->error->toString());
    for (const auto &line : std::as_const(e->verdicts))
        spdlog::info("patch lab: experiment {}: {}", e->id, line.toStdString());
    m_sinceAnswer.start();
    const int id = e->id;
    if (ok && m_reactionTimeoutMs > 0) {
        e->reaction.outcome = Reaction::Outcome::Watching;
        e->reaction.timeoutMs = m_reactionTimeoutMs;
        emit experimentAnswered(id);
        emit historyChanged();
        startWatching();
        return;
    }
    emit experimentAnswered(id);
    finish();
}

void PatchLab::startWatching()
{
    PatchExperiment *e = current();
    if (!e || !m_client)
        return;
    apimachinery::WatchOptions options;
    options.fieldSelector = u"metadata.name=%1"_s.arg(e->request.name);
    options.resourceVersion = models::ObjectMetaView(e->after).resourceVersion();
    options.allowWatchBookmarks = false;
    options.timeoutSeconds = std::max(1, (m_reactionTimeoutMs + 999) / 1000 + 5);
    m_watch = m_client->watch(e->request.resource, e->request.namespace_, options, this);
    connect(m_watch, &kube::WatchConnection::eventsReceived, this, &PatchLab::handleWatchEvents);
    connect(m_watch,
            &kube::WatchConnection::finished,
            this,
            [this](const std::optional<ApiError> &error) {
                if (!m_busy)
                    return;
                if (error && error->category != ApiError::Category::Cancelled)
                    endReaction(Reaction::Outcome::Failed, error->toString());
                else
                    endReaction(Reaction::Outcome::Failed, u"the watch ended early"_s);
            });
    m_reactionTimer->start(m_reactionTimeoutMs);
}

void PatchLab::handleWatchEvents(const QList<WatchEvent> &events)
{
    PatchExperiment *e = current();
    if (!e || e->reaction.outcome != Reaction::Outcome::Watching)
        return;
    for (const auto &event : events) {
        if (event.type == WatchEvent::Type::Error) {
            endReaction(Reaction::Outcome::Failed, event.status.toString());
            return;
        }
        if (event.type == WatchEvent::Type::Bookmark)
            continue;
        const json object = json::parse(event.object.constData(),
                                        event.object.constData() + event.object.size(),
                                        nullptr,
                                        false);
        if (event.type == WatchEvent::Type::Deleted) {
            e->reaction.writer = models::ObjectMetaView(object).resourceVersion();
            endReaction(Reaction::Outcome::Deleted);
            return;
        }
        const json diff = json::diff(models::jsonMember(e->after, "status"),
                                     models::jsonMember(object, "status"));
        if (!diff.empty()) {
            e->reaction.statusDiff = diff;
            e->reaction.writer = models::ObjectMetaView(object).resourceVersion();
            endReaction(Reaction::Outcome::Overwritten);
            return;
        }
    }
}

void PatchLab::endReaction(Reaction::Outcome outcome, const QString &detail)
{
    PatchExperiment *e = current();
    if (!e || !m_busy)
        return;
    m_reactionTimer->stop();
    if (m_watch) {
        m_watch->stop();
        m_watch->deleteLater();
        m_watch = nullptr;
    }
    e->reaction.outcome = outcome;
    e->reaction.afterMs = m_sinceAnswer.elapsed();
    if (outcome == Reaction::Outcome::Failed)
        e->reaction.writer = detail;
    spdlog::info("patch lab: experiment {}: {}", e->id, e->reaction.text().toStdString());
    finish();
}

void PatchLab::stopWatching()
{
    if (!m_busy)
        return;
    PatchExperiment *e = current();
    if (e && e->reaction.outcome == Reaction::Outcome::Watching)
        endReaction(Reaction::Outcome::Kept);
}

void PatchLab::finish()
{
    const int id = m_currentId;
    m_busy = false;
    m_currentId = 0;
    emit experimentFinished(id);
    emit historyChanged();
}

} // namespace reconscope::controller::labs
