// Makes resources/recordings/customapp-tour.rrec, the demo tour as a recording (issue 24): one
// round of the tour (resources/scenarios/customapp-tour.json, ScenarioPlayer at 1x) on an embedded
// cluster of its own with the workload simulator, the CustomApp reconciler acting on it, and
// `record customapps -A` (with their Events) recording what happens, until the round ends and the
// objects settle. The recording's metadata names the scenario's SHA-256, which
// tst_tourrecording compares with the scenario in the tree: change the tour, make it again.
//
//     build/tests/record/make_tour_recording resources/recordings/customapp-tour.rrec

#include "controller/console/scenarioplayer.h"
#include "controller/labs/labcluster.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "controller/record/recordsession.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace clabs = reconscope::controller::labs;
namespace console = reconscope::controller::console;
namespace kube = reconscope::controller::kube;
namespace operators = reconscope::controller::operators;
namespace record = reconscope::controller::record;

namespace {

// After the round's last step, the reconciler and the simulator finish what it started.
constexpr int SettleMs = 5000;

QByteArray scenarioSha256()
{
    QFile file(u":/scenarios/customapp-tour.json"_s);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex();
}

int fail(const QString &message)
{
    std::fprintf(stderr, "make_tour_recording: %s\n", qPrintable(message));
    QCoreApplication::exit(1);
    return 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    if (argc != 2) {
        std::fputs("usage: make_tour_recording FILE\n", stderr);
        return 2;
    }
    const QString output = QString::fromLocal8Bit(argv[1]);
    auto scenario = console::ScenarioPlayer::defaultScenario();
    if (!scenario)
        return fail(scenario.error().message);
    scenario->loop = false;

    reconscope::controller::reconcile::RealClock clock;
    clabs::LabCluster cluster(nullptr, true);
    std::unique_ptr<kube::RestClient> client;
    std::unique_ptr<operators::CustomAppOperator> reconciler;
    std::unique_ptr<record::RecordSession> session;
    console::ScenarioPlayer player;
    QObject::connect(
        &cluster, &clabs::LabCluster::failed, &app, [](const QString &message) { fail(message); });
    QObject::connect(
        &cluster, &clabs::LabCluster::ready, &app, [&](const kube::ClientConfig &config) {
            client = std::make_unique<kube::RestClient>(config);
            operators::CustomAppOperator::Options options;
            options.leaderElection = false;
            reconciler = std::make_unique<operators::CustomAppOperator>(config, clock, options);
            reconciler->start();
            record::RecordOptions recordOptions;
            recordOptions.resources = { u"customapps"_s };
            recordOptions.output = output;
            recordOptions.metadata = { { "producer", "make_tour_recording" },
                                       { "source", "record" },
                                       { "scenario", scenario->name.toStdString() },
                                       { "scenarioSha256", scenarioSha256().toStdString() } };
            session = std::make_unique<record::RecordSession>(client.get(), recordOptions);
            QObject::connect(session.get(),
                             &record::RecordSession::failed,
                             &app,
                             [](const QString &m) { fail(m); });
            QObject::connect(session.get(), &record::RecordSession::recording, &app, [&] {
                player.setClient(client.get());
                player.setScenario(*scenario);
                player.play();
            });
            QObject::connect(session.get(),
                             &record::RecordSession::finished,
                             &app,
                             [&output](const record::RecorderStats &stats) {
                                 if (!stats.error.isEmpty()) {
                                     fail(stats.error);
                                     return;
                                 }
                                 std::fprintf(
                                     stderr,
                                     "make_tour_recording: %lld events, %lld bytes into %s\n",
                                     static_cast<long long>(stats.events),
                                     static_cast<long long>(stats.fileBytes),
                                     qPrintable(output));
                                 QCoreApplication::exit(0);
                             });
            session->start();
        });
    QObject::connect(&player,
                     &console::ScenarioPlayer::stepFinished,
                     &app,
                     [&player](int step, bool ok, const QString &message) {
                         std::fprintf(stderr,
                                      "make_tour_recording: step %d %s: %s\n",
                                      step + 1,
                                      ok ? "done" : "failed",
                                      qPrintable(message));
                         if (!ok && !player.pauseReason().isEmpty())
                             fail(player.pauseReason());
                     });
    QObject::connect(&player, &console::ScenarioPlayer::roundFinished, &app, [&] {
        player.pause();
        QTimer::singleShot(SettleMs, &app, [&] { session->stop(u"tour finished"_s); });
    });
    if (const auto started = cluster.start(); !started)
        return fail(started.error().message);
    const int code = app.exec();
    if (reconciler)
        reconciler->stop();
    return code;
}
