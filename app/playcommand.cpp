// `reconscope play FILE... --kubeconfig F [--context C] [--speed X|max]`: a recording (or kubectl
// captures, merged by time) played into a cluster, its objects made again and changed as
// recorded (controller/record/recordingplayer.h): an incident studied again on `reconscope
// serve`, with a reconciler or the labs against it. It writes, so the cluster is never implied:
// --kubeconfig is required.
#include "app/cli/replayarguments.h"
#include "app/clusterconfig.h"
#include "app/commands.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/platform/terminationsignals.h"
#include "controller/record/recordingplayer.h"
#include "controller/record/recordingset.h"

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
    = "usage: reconscope play FILE... --kubeconfig F [--context C] [--speed X|max]\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope play: %s\n%s", qPrintable(message), Usage);
    return 2;
}

} // namespace

int runPlay(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Play a recording (or kubectl captures) into a cluster: its objects made again and "
        "changed as recorded, at the recorded pace."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"FILE"_s,
                                 u"A recording of `reconscope record`, or kubectl captures "
                                 "(merged by time)."_s,
                                 u"FILE..."_s);
    const QCommandLineOption kubeconfigOption(
        u"kubeconfig"_s, u"The cluster to play into (required: play writes)."_s, u"FILE"_s);
    const QCommandLineOption contextOption(u"context"_s, u"Kubeconfig context."_s, u"NAME"_s);
    const QCommandLineOption speedOption(
        u"speed"_s, u"X times as fast as recorded (default 1), or max."_s, u"X"_s);
    parser.addOptions({ kubeconfigOption, contextOption, speedOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    parser.process(arguments);

    if (parser.positionalArguments().isEmpty())
        return usageError(u"name the recording to play"_s);
    if (!parser.isSet(kubeconfigOption))
        return usageError(u"--kubeconfig names the cluster to play into (play writes to it)"_s);
    double speed = 1;
    if (parser.isSet(speedOption)) {
        const auto parsed = parseReplaySpeed(parser.value(speedOption));
        if (!parsed)
            return usageError(
                u"--speed \"%1\" is not a positive number or max"_s.arg(parser.value(speedOption)));
        speed = *parsed;
    }
    const auto config
        = loadClientConfig("play", parser.value(kubeconfigOption), parser.value(contextOption));
    if (!config) {
        std::fprintf(stderr, "reconscope play: %s\n", qPrintable(config.error().message));
        return 1;
    }
    auto source = record::openRecordSource(parser.positionalArguments());
    if (!source) {
        std::fprintf(stderr, "reconscope play: %s\n", qPrintable(source.error().message));
        return 1;
    }
    for (const QString &warning : source.value()->warnings())
        std::fprintf(stderr, "reconscope play: warning: %s\n", qPrintable(warning));
    controller::platform::TerminationSignals termination;
    if (!termination.install()) {
        std::fputs("reconscope play: cannot install the signal handlers\n", stderr);
        return 1;
    }
    QObject::connect(&termination, &controller::platform::TerminationSignals::received, &app, [] {
        std::_Exit(130);
    });

    const record::RecordSource *view = source.value().get(); // owned by the player
    kube::RestClient client(config.value());
    record::RecordingPlayer player(&client, std::move(source.value()), speed);
    const QString server = config->server.toString();
    std::fprintf(stderr, "reconscope play: playing into %s\n", qPrintable(server));
    QObject::connect(&player,
                     &record::RecordingPlayer::finished,
                     &app,
                     [&player, &server, view](const QString &error) {
                         std::fprintf(stderr,
                                      "reconscope play: %lld changes made with %lld writes into "
                                      "%s\n",
                                      static_cast<long long>(player.changesPlayed()),
                                      static_cast<long long>(player.writes()),
                                      qPrintable(server));
                         if (!error.isEmpty()) {
                             std::fprintf(stderr, "reconscope play: %s\n", qPrintable(error));
                             QCoreApplication::exit(1);
                             return;
                         }
                         if (const record::RecordingEnd end = view->end(); !end.complete)
                             std::fprintf(stderr,
                                          "reconscope play: the recording was %s\n",
                                          qPrintable(end.describe()));
                         QCoreApplication::exit(0);
                     });
    player.start();
    return app.exec();
}

} // namespace reconscope::app
