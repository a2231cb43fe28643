#pragma once

#include "controller/kube/restclient.h"
#include "controller/reconcile/clock.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QString>

#include <chrono>
#include <optional>

namespace reconscope::controller::operators {

// A coordination.k8s.io/v1 Lease's spec as leader election reads and writes it.
struct LeaseRecord
{
    QString holderIdentity;
    qint64 leaseDurationSeconds = 0;
    QString acquireTime; // MicroTime text as on the wire
    QString renewTime;
    qint64 leaseTransitions = 0;

    friend bool operator==(const LeaseRecord &, const LeaseRecord &) = default;
    static LeaseRecord fromLease(const nlohmann::json &lease);
    void applyTo(nlohmann::json &lease) const; // sets .spec
};

// Kubernetes' MicroTime: RFC 3339 UTC with microseconds ("2026-01-01T00:00:05.250000Z").
QString formatMicroTime(const QDateTime &time);

// client-go's leader election (tools/leaderelection) with a Lease lock: every retryPeriod the
// candidate reads the Lease; it takes it when it is free or when the holder has not renewed it
// for leaseDuration (judged by this candidate's clock from when it last saw the record change,
// so clocks need not agree), and renews it while leading, always with the resourceVersion it read
// (a 409 means someone else wrote first). A leader that fails to renew within renewDeadline stops
// leading. Who holds the lease is visible (holder(), holderChanged) to leaders and followers.
class LeaderElector final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LeaderElector)

public:
    struct Options
    {
        QString namespace_ = QStringLiteral("default");
        QString name = QStringLiteral("customapp-operator");
        QString identity; // required: unique per candidate (host name + random suffix)
        reconcile::Duration leaseDuration = std::chrono::seconds(15);
        reconcile::Duration renewDeadline = std::chrono::seconds(10);
        reconcile::Duration retryPeriod = std::chrono::seconds(2);
    };

    // The client and the clock must outlive the elector.
    LeaderElector(kube::RestClient *client,
                  reconcile::Clock &clock,
                  Options options,
                  QObject *parent = nullptr);
    // Destroying a leader does not release the lease (as a crash would not): the others take over
    // once it expires. stop() releases it.
    ~LeaderElector() override;

    void start();
    // Stops; a leader releases the lease (holder "" and a 1 s duration, as client-go's
    // ReleaseOnCancel) so that another candidate takes over at its next retry.
    void stop();

    bool isLeader() const { return m_leader; }
    QString identity() const { return m_options.identity; }
    QString holder() const { return m_observed.holderIdentity; }
    LeaseRecord observedRecord() const { return m_observed; }
    const Options &options() const { return m_options; }
    int attempts() const { return m_attempts; }

signals:
    void startedLeading();
    void stoppedLeading();
    void holderChanged(const QString &identity);
    // After stop() by a leader: the release was written (or failed).
    void leaseReleased(bool ok);

private:
    void schedule(reconcile::Duration delay);
    void tryAcquireOrRenew();
    void handleLease(kube::RestClient::JsonResult result);
    void handleWrite(kube::RestClient::JsonResult result);
    void noteRecord(const LeaseRecord &record);
    void failedAttempt(const QString &why);
    void setLeader(bool leader);

    kube::RestClient *m_client;
    reconcile::Clock &m_clock;
    Options m_options;
    bool m_running = false;
    bool m_inFlight = false;
    bool m_leader = false;
    int m_attempts = 0;
    quint64 m_generation = 0; // invalidates callbacks after stop()
    reconcile::Clock::TimerId m_timer = 0;
    LeaseRecord m_observed;
    reconcile::TimePoint m_observedTime{};
    reconcile::TimePoint m_lastRenew{};
};

} // namespace reconscope::controller::operators
