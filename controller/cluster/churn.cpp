#include "controller/cluster/churn.h"

#include <spdlog/spdlog.h>

#include <QDateTime>

#include <chrono>
#include <cmath>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ListOptions;
using apimachinery::PatchType;
using apimachinery::ResourceRef;

namespace {

constexpr int TickMs = 5;

// The mutator only needs to know whether a write went through.
WriteOptions outcomeOnly()
{
    WriteOptions options;
    options.returnObject = false;
    options.fieldManager = u"reconscope-churn"_s; // managedFields name the mutator
    return options;
}

QString keyOf(const QString &ns, const QString &name)
{
    return ns.isEmpty() ? name : ns + u'/' + name;
}

ApiResponse jsonResponse(int status, const json &body)
{
    ApiResponse response;
    response.status = status;
    response.body = QByteArray::fromStdString(body.dump()) + '\n';
    return response;
}

ApiResponse statusResponse(const ApiError &error)
{
    ApiResponse response;
    response.status = error.code;
    response.body = QByteArray::fromStdString(error.toStatus().dump()) + '\n';
    return response;
}

} // namespace

void ChurnMutator::KeySet::add(const QString &ns, const QString &name)
{
    const QString key = keyOf(ns, name);
    if (index.contains(key))
        return;
    index.insert(key, qsizetype(items.size()));
    items.push_back({ ns, name });
}

void ChurnMutator::KeySet::remove(const QString &ns, const QString &name)
{
    const auto it = index.constFind(keyOf(ns, name));
    if (it == index.cend())
        return;
    const qsizetype position = *it;
    index.erase(it);
    // Swap with the last one: order does not matter to a round robin.
    if (position != qsizetype(items.size()) - 1) {
        items[std::size_t(position)] = std::move(items.back());
        index.insert(keyOf(items[std::size_t(position)].ns, items[std::size_t(position)].name),
                     position);
    }
    items.pop_back();
}

ChurnMutator::ChurnMutator(Cluster *cluster, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(TickMs);
    connect(&m_timer, &QTimer::timeout, this, &ChurnMutator::handleTick);
    if (m_cluster)
        m_subscription
            = m_cluster->subscribe([this](const ClusterEvent &event) { handleEvent(event); });
}

ChurnMutator::~ChurnMutator()
{
    if (m_cluster)
        m_cluster->unsubscribe(m_subscription);
}

qint64 ChurnMutator::monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::optional<qint64> ChurnMutator::sentAt(QStringView message)
{
    const QLatin1StringView prefix(TimestampPrefix);
    if (!message.startsWith(prefix))
        return std::nullopt;
    QStringView rest = message.sliced(prefix.size());
    const qsizetype space = rest.indexOf(u' ');
    if (space >= 0)
        rest = rest.first(space);
    bool ok = false;
    const qint64 ns = rest.toLongLong(&ok);
    return ok ? std::optional<qint64>(ns) : std::nullopt;
}

void ChurnMutator::handleEvent(const ClusterEvent &event)
{
    if (!event.object)
        return;
    KeySet &keys = m_keys[event.storageKey];
    if (event.type == EventType::Deleted)
        keys.remove(event.object->ns, event.object->name);
    else if (event.type == EventType::Added)
        keys.add(event.object->ns, event.object->name);
}

void ChurnMutator::listExisting(KeySet &keys)
{
    ListOptions options;
    options.limit = 500;
    do {
        const auto page = m_cluster->list(m_ref, {}, options);
        if (!page)
            return;
        for (const json &item : page.value().value("items", json::array())) {
            const json meta = item.value("metadata", json::object());
            keys.add(QString::fromStdString(meta.value("namespace", std::string())),
                     QString::fromStdString(meta.value("name", std::string())));
        }
        options.continueToken = QString::fromStdString(
            page.value().value("metadata", json::object()).value("continue", std::string()));
    } while (!options.continueToken.isEmpty());
    keys.listed = true;
}

models::Status<>
ChurnMutator::start(const QString &resource, double rate, const QString &namespace_)
{
    using S = models::Status<>;
    if (!m_cluster)
        return S::failure(u"no cluster"_s);
    if (!(rate > 0) || !std::isfinite(rate) || rate > 1e6)
        return S::failure(u"the rate must be a number of changes per second in (0, 1000000]"_s);
    const qsizetype dot = resource.indexOf(u'.');
    const QString plural = dot < 0 ? resource : resource.left(dot);
    const std::optional<QString> group
        = dot < 0 ? std::nullopt : std::optional<QString>(resource.mid(dot + 1));
    std::optional<ResourceType> found;
    for (const ResourceType &type : m_cluster->servedTypes()) {
        if (type.plural != plural || (group && type.group != *group))
            continue;
        if (!found || (type.storage && !found->storage))
            found = type;
    }
    if (!found)
        return S::failure(u"the server doesn't have a resource type \"%1\""_s.arg(resource));
    if (!found->statusSubresource)
        return S::failure(u"%1 has no status subresource"_s.arg(found->qualifiedResource()));
    stop();
    m_ref = ResourceRef{ found->group, found->version, found->plural };
    m_resourceName = found->qualifiedResource();
    m_storageKey = found->group + u'/' + found->plural;
    m_namespace = found->namespaced ? namespace_ : QString();
    KeySet &keys = m_keys[m_storageKey];
    if (!keys.listed)
        listExisting(keys);
    m_rate = rate;
    m_due = m_applied = m_failed = m_skipped = m_lastTarget = 0;
    m_runNs = -1;
    m_inPlaceAtStart = m_cluster->statusPatchesInPlace();
    m_lastError.clear();
    m_clock.start();
    m_timer.start();
    spdlog::info("embedded cluster: churning the status of {} ({}) at {}/s",
                 m_resourceName.toStdString(),
                 m_namespace.isEmpty() ? "all namespaces" : m_namespace.toStdString(),
                 rate);
    return {};
}

void ChurnMutator::stop()
{
    if (!m_timer.isActive())
        return;
    m_timer.stop();
    m_runNs = m_clock.nsecsElapsed();
    spdlog::info("embedded cluster: churn stopped after {} changes ({} failed, {} skipped; {} "
                 "status patches applied in place)",
                 m_applied,
                 m_failed,
                 m_skipped,
                 m_cluster ? m_cluster->statusPatchesInPlace() - m_inPlaceAtStart : 0);
}

qsizetype ChurnMutator::targetCount() const
{
    const auto it = m_keys.constFind(m_storageKey);
    if (it == m_keys.cend())
        return 0;
    if (m_namespace.isEmpty())
        return qsizetype(it->items.size());
    return std::count_if(it->items.cbegin(), it->items.cend(), [this](const Target &target) {
        return target.ns == m_namespace;
    });
}

void ChurnMutator::handleTick()
{
    if (!m_cluster) {
        m_timer.stop();
        return;
    }
    const auto target = qint64(std::floor(m_rate * double(m_clock.nsecsElapsed()) / 1e9));
    m_lastTarget = target;
    qint64 debt = target - m_due;
    const auto cap = std::max<qint64>(1, qint64(m_rate / 10));
    if (debt > cap) {
        m_skipped += debt - cap;
        m_due += debt - cap;
        debt = cap;
    }
    // At most ~10 ms of writes per tick, so that the event loop gets to write the watch events
    // out between bursts; what is left is due at the next tick.
    QElapsedTimer busy;
    busy.start();
    for (; debt > 0 && busy.nsecsElapsed() < 10'000'000; --debt) {
        ++m_due;
        churnOne();
    }
}

void ChurnMutator::churnOne()
{
    KeySet &keys = m_keys[m_storageKey];
    // The next object of the namespace, round robin; give up after one pass without a match.
    Target *target = nullptr;
    for (std::size_t looked = 0; looked < keys.items.size() && !target; ++looked) {
        if (m_cursor >= qsizetype(keys.items.size()))
            m_cursor = 0;
        Target &candidate = keys.items[std::size_t(m_cursor++)];
        if (m_namespace.isEmpty() || candidate.ns == m_namespace)
            target = &candidate;
    }
    if (!target) {
        ++m_skipped;
        return;
    }
    const qint64 sequence = ++m_sequence;
    const std::string message = std::string(TimestampPrefix) + std::to_string(monotonicNs())
        + " seq " + std::to_string(sequence);
    if (target->conditionIndex >= 0 && patchKnownCondition(*target, message))
        return;
    const QString ns = target->ns;
    const QString name = target->name;
    auto current = m_cluster->get(m_ref, ns, name);
    if (!current) {
        ++m_failed;
        m_lastError = current.error().message;
        return;
    }
    json object = std::move(current.value());
    json &status = object["status"];
    if (!status.is_object())
        status = json::object();
    json &conditions = status["conditions"];
    if (!conditions.is_array())
        conditions = json::array();
    const json generation = object["metadata"].value("generation", json());
    json *condition = nullptr;
    int index = 0;
    for (json &existing : conditions) {
        if (existing.is_object() && existing.value("type", std::string()) == ConditionType) {
            condition = &existing;
            target->conditionIndex = index;
        }
        ++index;
    }
    if (!condition) {
        conditions.push_back(
            { { "type", ConditionType },
              { "status", "True" },
              { "reason", "Churn" },
              { "lastTransitionTime",
                QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString() } });
        condition = &conditions.back();
        target->conditionIndex = int(conditions.size()) - 1;
    }
    (*condition)["message"] = message;
    if (generation.is_number_integer())
        (*condition)["observedGeneration"] = generation;
    const auto written = m_cluster->updateStatus(m_ref, ns, name, std::move(object), outcomeOnly());
    if (written) {
        ++m_applied;
    } else {
        ++m_failed;
        m_lastError = written.error().message;
        target->conditionIndex = -1;
    }
}

bool ChurnMutator::patchKnownCondition(Target &target, const std::string &message)
{
    // What json::dump() writes for [{"op":"test",...},{"op":"replace",...}]: the index, the type
    // and the message need no escaping.
    const std::string index = std::to_string(target.conditionIndex);
    QByteArray patch;
    patch.reserve(160 + qsizetype(message.size()));
    patch.append(R"([{"op":"test","path":"/status/conditions/)")
        .append(index.data(), qsizetype(index.size()))
        .append(R"(/type","value":")")
        .append(ConditionType)
        .append(R"("},{"op":"replace","path":"/status/conditions/)")
        .append(index.data(), qsizetype(index.size()))
        .append(R"(/message","value":")")
        .append(message.data(), qsizetype(message.size()))
        .append(R"("}])");
    const auto written = m_cluster->patch(
        m_ref, target.ns, target.name, PatchType::Json, patch, true, outcomeOnly());
    if (written) {
        ++m_applied;
        return true;
    }
    // The conditions moved (another writer): read the object and look again.
    target.conditionIndex = -1;
    return false;
}

json ChurnMutator::state() const
{
    const double seconds = !m_clock.isValid() ? 0.0
        : m_runNs >= 0                        ? double(m_runNs) / 1e9
                                              : double(m_clock.nsecsElapsed()) / 1e9;
    return { { "running", isRunning() },
             { "resource", m_resourceName.toStdString() },
             { "namespace", m_namespace.toStdString() },
             { "rate", m_rate },
             { "applied", m_applied },
             { "failed", m_failed },
             { "skipped", m_skipped },
             { "objects", targetCount() },
             { "seconds", seconds },
             { "appliedPerSecond",
               m_lastTarget > 0 ? m_rate * double(m_applied) / double(m_lastTarget) : 0.0 },
             { "lastError", m_lastError.toStdString() } };
}

ApiHandler withChurnEndpoint(ApiHandler inner, QPointer<ChurnMutator> mutator)
{
    return [inner = std::move(inner), mutator](const ApiRequest &request) -> ApiResponse {
        const QLatin1StringView path(ChurnEndpointPath);
        if (request.path != path && request.path != path + u'/')
            return inner(request);
        if (!request.user.groups.contains(u"system:masters"_s)) {
            // As kube-apiserver words a refused non-resource URL.
            return statusResponse(
                ApiError::forbidden({},
                                    {},
                                    {},
                                    u"User \"%1\" cannot %2 path \"%3\""_s.arg(
                                        request.user.name,
                                        QString::fromLatin1(request.method).toLower(),
                                        request.path)));
        }
        if (!mutator)
            return statusResponse(ApiError::internal(u"no churn mutator"_s));
        if (request.method == "GET")
            return jsonResponse(200, mutator->state());
        if (request.method != "POST") {
            ApiError error
                = ApiError::badRequest(u"%1 is not supported on %2: use GET or POST"_s.arg(
                    QString::fromLatin1(request.method), request.path));
            error.code = 405;
            error.reason = u"MethodNotAllowed"_s;
            return statusResponse(error);
        }
        const QString rateText = request.query.queryItemValue(u"rate"_s);
        bool ok = false;
        const double rate = rateText.toDouble(&ok);
        if (!ok || rate < 0)
            return statusResponse(ApiError::badRequest(u"rate must be a number >= 0"_s));
        if (rate == 0) {
            mutator->stop();
            return jsonResponse(200, mutator->state());
        }
        const QString resource = request.query.queryItemValue(u"resource"_s);
        const auto started = mutator->start(resource.isEmpty() ? u"customapps"_s : resource,
                                            rate,
                                            request.query.queryItemValue(u"namespace"_s));
        if (!started)
            return statusResponse(ApiError::badRequest(started.error().message));
        return jsonResponse(200, mutator->state());
    };
}

} // namespace reconscope::controller::cluster
