// `reconscope record [RESOURCE...|--all-crds] [-n NS|-A] -o FILE [--duration D] [--no-events]
// [--kubeconfig F] [--context C]`: the objects of the resources (and their Events) as listed and
// as every watch event changed them, with receive times, into a recording file
// (docs/recording.md) until Ctrl-C or the duration. The work is controller/record's
// RecordSession; this wires it to the command line and to SIGINT/SIGTERM.
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/platform/terminationsignals.h"
#include "controller/record/recordsession.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace record = reconscope::controller::record;

namespace reconscope::app {

namespace {

constexpr const char *Usage
    = "usage: reconscope record [RESOURCE...|--all-crds] [-n NS|-A] -o FILE [--duration D] "
      "[--no-events] [--kubeconfig F] [--context C]\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope record: %s\n%s", qPrintable(message), Usage);
    return 2;
}

QString megabytes(qint64 bytes)
{
    return u"%1 MB"_s.arg(bytes / 1e6, 0, 'f', 2);
}

void printSummary(const record::RecorderStats &stats, const QString &path)
{
    const double ratio
        = stats.receivedBytes > 0 ? 100.0 * stats.fileBytes / stats.receivedBytes : 0;
    std::fprintf(stderr,
                 "reconscope record: %lld events and %lld listed objects of %d resources in "
                 "%.1f s: %s of JSON received, %s written to %s (%.1f%%)\n",
                 static_cast<long long>(stats.events),
                 static_cast<long long>(stats.listItems),
                 stats.resources,
                 stats.durationUs / 1e6,
                 qPrintable(megabytes(stats.receivedBytes)),
                 qPrintable(megabytes(stats.fileBytes)),
                 qPrintable(path),
                 ratio);
}

} // namespace

int runRecord(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Record the objects of RESOURCE (and their Events) as they change, into FILE."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"RESOURCE"_s,
                                 u"customapps, deployments.apps, ca, ... (or --all-crds)"_s,
                                 u"[RESOURCE...]"_s);
    const QCommandLineOption allCrdsOption(u"all-crds"_s,
                                           u"Every resource a CustomResourceDefinition serves."_s);
    const QCommandLineOption nsOption(
        { u"n"_s, u"namespace"_s }, u"Namespace (default: the context's)."_s, u"NS"_s);
    const QCommandLineOption allOption({ u"A"_s, u"all-namespaces"_s },
                                       u"Objects of all namespaces."_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"The recording file to write."_s, u"FILE"_s);
    const QCommandLineOption durationOption(
        u"duration"_s, u"Stop after D (90s, 5m, 1h30m); default: Ctrl-C."_s, u"D"_s);
    const QCommandLineOption noEventsOption(u"no-events"_s,
                                            u"Leave out the Events of the recorded kinds."_s);
    const QCommandLineOption kubeconfigOption(u"kubeconfig"_s, u"Kubeconfig file."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    parser.addOptions({ allCrdsOption,
                        nsOption,
                        allOption,
                        outputOption,
                        durationOption,
                        noEventsOption,
                        kubeconfigOption,
                        contextOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    parser.process(arguments);

    record::RecordOptions options;
    options.resources = parser.positionalArguments();
    options.allCrds = parser.isSet(allCrdsOption);
    options.output = parser.value(outputOption);
    options.events = !parser.isSet(noEventsOption);
    if (options.resources.isEmpty() == !options.allCrds)
        return usageError(options.allCrds ? u"name resources or --all-crds, not both"_s
                                          : u"name the resources to record, or --all-crds"_s);
    if (options.output.isEmpty())
        return usageError(u"-o FILE is required"_s);
    if (parser.isSet(nsOption) && parser.isSet(allOption))
        return usageError(u"-n and -A exclude each other"_s);
    if (parser.isSet(durationOption)) {
        const auto duration = record::parseDuration(parser.value(durationOption));
        if (!duration)
            return usageError(u"--duration \"%1\" is not a duration (90s, 5m, 1h30m)"_s.arg(
                parser.value(durationOption)));
        options.duration = *duration;
    }
    const auto config
        = loadClientConfig("record", parser.value(kubeconfigOption), parser.value(contextOption));
    if (!config) {
        std::fprintf(stderr, "reconscope record: %s\n", qPrintable(config.error().message));
        return 1;
    }
    options.namespace_ = parser.isSet(allOption) ? QString()
        : parser.isSet(nsOption)                 ? parser.value(nsOption)
                                                 : config->namespace_;
    options.metadata = {
        { "producer", (u"reconscope "_s + QCoreApplication::applicationVersion()).toStdString() },
        { "source", "record" },
        { "context", config->contextName.toStdString() },
        { "server", config->server.toString().toStdString() },
        { "namespace", options.namespace_.toStdString() },
        { "arguments",
          options.allCrds ? u"--all-crds"_s.toStdString()
                          : options.resources.join(u' ').toStdString() },
    };
    controller::platform::TerminationSignals termination;
    if (!termination.install()) {
        std::fputs("reconscope record: cannot install the signal handlers\n", stderr);
        return 1;
    }

    kube::RestClient client(config.value());
    record::RecordSession session(&client, options);
    QObject::connect(&session, &record::RecordSession::failed, &app, [](const QString &message) {
        std::fprintf(stderr, "reconscope record: %s\n", qPrintable(message));
        QCoreApplication::exit(1);
    });
    QObject::connect(
        &session, &record::RecordSession::recording, &app, [&options](const QStringList &what) {
            std::fprintf(stderr,
                         "reconscope record: recording %s into %s (Ctrl-C ends)\n",
                         qPrintable(what.join(u"; "_s)),
                         qPrintable(options.output));
        });
    QObject::connect(&session,
                     &record::RecordSession::finished,
                     &app,
                     [&options](const record::RecorderStats &stats) {
                         printSummary(stats, options.output);
                         if (!stats.error.isEmpty())
                             std::fprintf(
                                 stderr, "reconscope record: %s\n", qPrintable(stats.error));
                         QCoreApplication::exit(stats.error.isEmpty() ? 0 : 1);
                     });
    int interrupts = 0;
    QObject::connect(&termination,
                     &controller::platform::TerminationSignals::received,
                     &app,
                     [&session, &interrupts] {
                         // A second Ctrl-C does not wait: the file is cut short.
                         if (++interrupts > 1)
                             std::_Exit(130);
                         session.stop(u"interrupted"_s);
                     });
    session.start();
    return app.exec();
}

} // namespace reconscope::app
