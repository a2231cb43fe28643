#include "recordbench.h"

#include "benchserver.h"
#include "consolebench.h"

#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/record/recordsession.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QSocketNotifier>
#include <QTemporaryDir>

#include <cstdio>
#include <ctime>
#include <unistd.h>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace kube = reconscope::controller::kube;
namespace record = reconscope::controller::record;

namespace {

double processCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

json childLine(QProcess &child, const QByteArray &command, int timeoutMs)
{
    child.write(command + '\n');
    QElapsedTimer timer;
    timer.start();
    while (!child.canReadLine() && timer.elapsed() < timeoutMs
           && child.state() == QProcess::Running)
        child.waitForReadyRead(100);
    const QByteArray line = child.readLine().trimmed();
    return json::parse(line.constBegin(), line.constEnd(), nullptr, false);
}

} // namespace

int runRecordChild(const QString &kubeconfigPath, const QString &output)
{
    auto kubeconfig = kube::Kubeconfig::load(kubeconfigPath);
    auto config = kubeconfig ? kubeconfig->resolve()
                             : reconscope::models::Result<kube::ClientConfig>(kubeconfig.error());
    if (!config) {
        std::fprintf(stderr, "%s\n", qPrintable(config.error().message));
        return 1;
    }
    kube::RestClient client(config.value());
    record::RecordOptions options;
    options.resources = { u"customapps"_s };
    options.output = output;
    record::RecordSession session(&client, options);
    QElapsedTimer wall;
    wall.start();
    const auto figures = [&](const record::RecorderStats &stats) {
        return json{ { "cpu_seconds", processCpuSeconds() },
                     { "wall_seconds", double(wall.nsecsElapsed()) / 1e9 },
                     { "stats",
                       { { "list_items", stats.listItems },
                         { "events", stats.events },
                         { "received_bytes", stats.receivedBytes },
                         { "file_bytes", stats.fileBytes } } } };
    };
    QObject::connect(&session, &record::RecordSession::failed, [](const QString &message) {
        std::fprintf(stderr, "record child: %s\n", qPrintable(message));
        QCoreApplication::exit(1);
    });
    QObject::connect(
        &session, &record::RecordSession::finished, [&](const record::RecorderStats &stats) {
            std::printf("%s\n", figures(stats).dump().c_str());
            std::fflush(stdout);
            QCoreApplication::exit(stats.error.isEmpty() ? 0 : 1);
        });
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, [&] {
        char line[64] = {};
        if (!std::fgets(line, sizeof line, stdin) || QByteArrayView(line).startsWith("stop")) {
            input.setEnabled(false);
            session.stop(u"bench"_s);
            return;
        }
        std::printf("%s\n", figures(session.stats()).dump().c_str());
        std::fflush(stdout);
    });
    session.start();
    return QCoreApplication::exec();
}

json benchRecorder(BenchServer &server,
                   QNetworkAccessManager &nam,
                   int objects,
                   double rate,
                   double seconds,
                   int *failures)
{
    QTemporaryDir dir;
    const QString file = dir.filePath(u"bench.rrec"_s);
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(),
                { u"--record-child"_s, server.kubeconfigPath(), file });
    child.waitForStarted(30000);
    // The list first: until every object is in the recording.
    QElapsedTimer listTimer;
    listTimer.start();
    json mark;
    do {
        runEventsFor(200);
        mark = childLine(child, "mark", 30000);
    } while (!mark.is_discarded() && mark["stats"].value("list_items", 0) < objects
             && listTimer.elapsed() < 300000);
    if (mark.is_discarded() || mark["stats"].value("list_items", 0) < objects) {
        std::fprintf(stderr, "record child: the list was not recorded\n");
        ++*failures;
        child.kill();
        child.waitForFinished();
        return {};
    }
    const double listSeconds = mark["wall_seconds"].get<double>();
    const double achieved = driveServerChurn(server, nam, rate, seconds, failures);
    runEventsFor(1500); // the last events reach the recorder
    const json after = childLine(child, "mark", 30000);
    const json last = childLine(child, "stop", 120000);
    child.waitForFinished(30000);
    if (after.is_discarded() || last.is_discarded()) {
        std::fprintf(stderr, "record child: no figures\n");
        ++*failures;
        return {};
    }
    const json &stats = last["stats"];
    const double cpuShare = (after["cpu_seconds"].get<double>() - mark["cpu_seconds"].get<double>())
        / (after["wall_seconds"].get<double>() - mark["wall_seconds"].get<double>());
    const double received = stats.value("received_bytes", 0.0);
    const double fileBytes = stats.value("file_bytes", 0.0);
    const json figures{ { "record_list_seconds", listSeconds },
                        { "record_events_per_s", achieved },
                        { "record_events", stats.value("events", 0) },
                        { "record_cpu_core_share", cpuShare },
                        { "record_received_bytes", received },
                        { "record_file_bytes", fileBytes },
                        { "record_file_per_received", received > 0 ? fileBytes / received : 0.0 } };
    std::printf("recorder          %8.0f events/s for %.0f s after a list of %d in %.2f s: "
                "%.0f%% of a core, the file %.1f MB, %.3f x the %.0f MB of JSON received\n",
                achieved,
                seconds,
                objects,
                listSeconds,
                cpuShare * 100,
                fileBytes / 1e6,
                received > 0 ? fileBytes / received : 0.0,
                received / 1e6);
    return figures;
}
