#pragma once

#include "controller/kube/discovery.h"
#include "controller/kube/restclient.h"
#include "controller/record/recorder.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <optional>

class QTimer;

namespace reconscope::controller::record {

// A duration as Go and kubectl write one ("90s", "5m", "1h30m", "250ms"), or a number of
// seconds; nothing when it is neither or not positive.
std::optional<std::chrono::milliseconds> parseDuration(const QString &text);

// What `reconscope record` records.
struct RecordOptions
{
    QStringList resources; // as kubectl takes them: plural, singular, short name, kind, qualified
    bool allCrds = false; // every resource a CRD serves, instead
    QString namespace_; // empty: all namespaces
    bool events = true; // and the Events of the recorded kinds
    QString output;
    std::chrono::milliseconds duration{ 0 }; // 0: until stop()
    nlohmann::json metadata = nlohmann::json::object(); // for the header (context, server, ...)
};

// One recording from start to end: discovery (recorded), the resources resolved as kubectl
// resolves them (or every CRD's), each custom resource's CRD (recorded: a replay needs no
// cluster), then a Recorder over them and, unless told otherwise, over the Events of their kinds
// (core/v1 events with an involvedObject.kind field selector).
class RecordSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecordSession)

public:
    RecordSession(kube::RestClient *client, RecordOptions options, QObject *parent = nullptr);
    ~RecordSession() override;

    // Opens the file and starts discovery; recording() or failed() follows.
    void start();
    // Ends the recording (Ctrl-C, the duration); finished() follows.
    void stop(const QString &reason);
    RecorderStats stats() const { return m_recorder->stats(); }

signals:
    // What is recorded, once it has started: "customapps.infrastructure.internal.net in demo".
    void recording(const QStringList &resources);
    void failed(const QString &message);
    void finished(const reconscope::controller::record::RecorderStats &stats);

private:
    void handleDiscovered();
    void resolveCrds(const QList<QByteArray> &crds);
    void fetchCrds();
    void begin();
    void fail(const QString &message);

    kube::RestClient *m_client;
    RecordOptions m_options;
    kube::DiscoveryClient m_discovery;
    std::unique_ptr<Recorder> m_recorder;
    QList<kube::DiscoveredResource> m_resources;
    QList<QByteArray> m_crds;
    int m_pendingCrds = 0;
    bool m_resolved = false;
    bool m_failed = false;
    QTimer *m_durationTimer = nullptr;
};

} // namespace reconscope::controller::record
