// reconscope: one binary, several commands (shared/design.md). main() only picks the command and
// wires the layers; each command's logic lives in the controller and ui libraries.
#include "controller/cluster/server/servecommand.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>

using namespace Qt::StringLiterals;
namespace cluster = reconscope::controller::cluster;

namespace {

constexpr auto usageCommands = R"(
Commands:
  (none)                 the console on the embedded cluster, demo scenario running
  serve                  the embedded cluster alone, headless (see `reconscope serve --help`)
)";

void setApplicationInfo()
{
    QCoreApplication::setApplicationName(u"reconscope"_s);
    QCoreApplication::setOrganizationName(u"reconscope"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(RECONSCOPE_VERSION));
}

QStringList argumentsAfterCommand(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 2; i < argc; ++i)
        arguments += QString::fromLocal8Bit(argv[i]);
    return arguments;
}

int runServe(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    const auto arguments = argumentsAfterCommand(argc, argv);
    if (arguments.contains(u"--help"_s) || arguments.contains(u"-h"_s)) {
        std::fputs(cluster::ServeCommand::usage().toLocal8Bit().constData(), stdout);
        return 0;
    }
    const auto options = cluster::ServeCommand::parseArguments(arguments);
    if (!options) {
        std::fprintf(
            stderr, "reconscope serve: %s\n", options.error().message.toLocal8Bit().constData());
        return 2;
    }
    cluster::EmbeddedClusterOptions clusterOptions;
    clusterOptions.demo = options->demo;
    return cluster::ServeCommand::run(options.value(),
                                      cluster::embeddedClusterFactory(clusterOptions));
}

int runGui(int argc, char *argv[])
{
    QApplication app(argc, argv);
    setApplicationInfo();

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Reconscope: an operator console for Kubernetes custom resources."_s
        + QString::fromLatin1(usageCommands));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.process(app);

    reconscope::ui::MainWindow window;
    window.show();
    return app.exec();
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc > 1 && std::strcmp(argv[1], "serve") == 0)
        return runServe(argc, argv);
    return runGui(argc, argv);
}
