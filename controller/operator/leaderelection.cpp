#include "controller/operator/leaderelection.h"
#include "models/jsonfields.h"

#include <spdlog/spdlog.h>

#include <QPointer>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::operators {

namespace {

const apimachinery::ResourceRef leaseResource{
    u"coordination.k8s.io"_s, u"v1"_s, u"leases"_s, true
};

qint64 ceilSeconds(reconcile::Duration d)
{
    using namespace std::chrono;
    return std::max<qint64>(1, duration_cast<seconds>(d + seconds(1) - nanoseconds(1)).count());
}

} // namespace

QString formatMicroTime(const QDateTime &time)
{
    const QDateTime utc = time.toUTC();
    return utc.toString(u"yyyy-MM-ddTHH:mm:ss.zzz"_s) + u"000Z"_s;
}

LeaseRecord LeaseRecord::fromLease(const json &lease)
{
    LeaseRecord r;
    const json spec = lease.is_object() ? lease.value("spec", json::object()) : json::object();
    r.holderIdentity = models::jsonString(spec, "holderIdentity");
    r.leaseDurationSeconds = models::jsonInteger(spec, "leaseDurationSeconds");
    r.acquireTime = models::jsonString(spec, "acquireTime");
    r.renewTime = models::jsonString(spec, "renewTime");
    r.leaseTransitions = models::jsonInteger(spec, "leaseTransitions");
    return r;
}

void LeaseRecord::applyTo(json &lease) const
{
    json &spec = lease["spec"];
    spec["holderIdentity"] = holderIdentity.toStdString();
    spec["leaseDurationSeconds"] = leaseDurationSeconds;
    spec["acquireTime"] = acquireTime.toStdString();
    spec["renewTime"] = renewTime.toStdString();
    spec["leaseTransitions"] = leaseTransitions;
}

LeaderElector::LeaderElector(kube::RestClient *client,
                             reconcile::Clock &clock,
                             Options options,
                             QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_clock(clock)
    , m_options(std::move(options))
{ }

LeaderElector::~LeaderElector()
{
    m_running = false;
    ++m_generation;
    if (m_timer)
        m_clock.cancel(m_timer);
}

void LeaderElector::start()
{
    if (m_running)
        return;
    m_running = true;
    ++m_generation;
    spdlog::info("leader election: {} competing for lease {}/{}",
                 m_options.identity.toStdString(),
                 m_options.namespace_.toStdString(),
                 m_options.name.toStdString());
    schedule(reconcile::Duration::zero());
}

void LeaderElector::stop()
{
    if (!m_running)
        return;
    m_running = false;
    ++m_generation;
    m_inFlight = false;
    if (m_timer) {
        m_clock.cancel(m_timer);
        m_timer = 0;
    }
    if (!m_leader)
        return;
    setLeader(false);
    // Release: empty holder, 1 s duration (client-go's release()).
    const QString name = m_options.name;
    QPointer<kube::RestClient> client(m_client);
    QPointer<LeaderElector> self(this);
    const QString ns = m_options.namespace_;
    const QString now = formatMicroTime(reconcile::toDateTime(m_clock.now()));
    m_client->get(
        leaseResource, ns, name, [client, self, ns, name, now](kube::RestClient::JsonResult got) {
            if (!got || !client) {
                if (self)
                    emit self->leaseReleased(false);
                return;
            }
            json lease = std::move(got.value());
            LeaseRecord record = LeaseRecord::fromLease(lease);
            record.holderIdentity.clear();
            record.leaseDurationSeconds = 1;
            record.renewTime = now;
            record.acquireTime = now;
            record.applyTo(lease);
            client->update(
                leaseResource, ns, name, lease, [self](kube::RestClient::JsonResult result) {
                    if (!result)
                        spdlog::warn("leader election: release failed: {}",
                                     result.error().toString().toStdString());
                    if (self)
                        emit self->leaseReleased(result.ok());
                });
        });
}

void LeaderElector::schedule(reconcile::Duration delay)
{
    if (m_timer)
        m_clock.cancel(m_timer);
    const quint64 generation = m_generation;
    m_timer = m_clock.callAfter(delay, [this, generation] {
        m_timer = 0;
        if (generation != m_generation || !m_running)
            return;
        tryAcquireOrRenew();
        schedule(m_options.retryPeriod);
    });
}

void LeaderElector::tryAcquireOrRenew()
{
    if (m_leader && m_clock.now() - m_lastRenew > m_options.renewDeadline) {
        spdlog::warn("leader election: {} could not renew within the deadline",
                     m_options.identity.toStdString());
        setLeader(false);
    }
    if (m_inFlight)
        return;
    m_inFlight = true;
    ++m_attempts;
    const quint64 generation = m_generation;
    m_client->get(leaseResource,
                  m_options.namespace_,
                  m_options.name,
                  [this, generation](kube::RestClient::JsonResult result) {
                      if (generation != m_generation)
                          return;
                      handleLease(std::move(result));
                  });
}

void LeaderElector::noteRecord(const LeaseRecord &record)
{
    if (!(record == m_observed)) {
        const bool holderChange = record.holderIdentity != m_observed.holderIdentity;
        m_observed = record;
        m_observedTime = m_clock.now();
        if (holderChange) {
            spdlog::info("leader election: lease {}/{} held by \"{}\"",
                         m_options.namespace_.toStdString(),
                         m_options.name.toStdString(),
                         record.holderIdentity.toStdString());
            emit holderChanged(record.holderIdentity);
        }
    }
}

void LeaderElector::handleLease(kube::RestClient::JsonResult result)
{
    const reconcile::TimePoint now = m_clock.now();
    const QString nowText = formatMicroTime(reconcile::toDateTime(now));
    LeaseRecord desired;
    desired.holderIdentity = m_options.identity;
    desired.leaseDurationSeconds = ceilSeconds(m_options.leaseDuration);
    desired.renewTime = nowText;
    desired.acquireTime = nowText;
    const quint64 generation = m_generation;
    auto onWrite = [this, generation](kube::RestClient::JsonResult written) {
        if (generation != m_generation)
            return;
        handleWrite(std::move(written));
    };
    if (!result) {
        if (!result.error().isNotFound()) {
            failedAttempt(u"get lease: "_s + result.error().toString());
            return;
        }
        json lease = { { "apiVersion", "coordination.k8s.io/v1" },
                       { "kind", "Lease" },
                       { "metadata",
                         { { "name", m_options.name.toStdString() },
                           { "namespace", m_options.namespace_.toStdString() } } } };
        desired.applyTo(lease);
        m_client->create(leaseResource, m_options.namespace_, lease, onWrite);
        return;
    }
    json lease = std::move(result.value());
    const LeaseRecord current = LeaseRecord::fromLease(lease);
    noteRecord(current);
    const bool mine = current.holderIdentity == m_options.identity;
    const auto duration = std::chrono::seconds(current.leaseDurationSeconds);
    if (!current.holderIdentity.isEmpty() && !mine && m_observedTime + duration > now) {
        failedAttempt(u"lease held by "_s + current.holderIdentity);
        return;
    }
    if (mine) {
        desired.acquireTime = current.acquireTime;
        desired.leaseTransitions = current.leaseTransitions;
    } else {
        desired.leaseTransitions = current.leaseTransitions + 1;
    }
    desired.applyTo(lease); // metadata.resourceVersion stays: the optimistic lock
    m_client->update(leaseResource, m_options.namespace_, m_options.name, lease, onWrite);
}

void LeaderElector::handleWrite(kube::RestClient::JsonResult result)
{
    if (!result) {
        failedAttempt(u"write lease: "_s + result.error().toString());
        return;
    }
    m_inFlight = false;
    noteRecord(LeaseRecord::fromLease(result.value()));
    m_lastRenew = m_clock.now();
    setLeader(true);
}

void LeaderElector::failedAttempt(const QString &why)
{
    m_inFlight = false;
    spdlog::debug("leader election: {}: {}", m_options.identity.toStdString(), why.toStdString());
    if (m_leader
        && (m_clock.now() - m_lastRenew > m_options.renewDeadline
            || m_observed.holderIdentity != m_options.identity)) {
        spdlog::warn("leader election: {} lost the lease: {}",
                     m_options.identity.toStdString(),
                     why.toStdString());
        setLeader(false);
    }
}

void LeaderElector::setLeader(bool leader)
{
    if (m_leader == leader)
        return;
    m_leader = leader;
    if (leader) {
        spdlog::info("leader election: {} started leading", m_options.identity.toStdString());
        emit startedLeading();
    } else {
        spdlog::info("leader election: {} stopped leading", m_options.identity.toStdString());
        emit stoppedLeading();
    }
}

} // namespace reconscope::controller::operators
