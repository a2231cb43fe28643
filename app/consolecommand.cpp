#include "app/commands.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

using namespace Qt::StringLiterals;

namespace reconscope::app {

namespace {

constexpr auto usageCommands = R"(
Commands:
  (none)                 the console on the embedded cluster, demo scenario running
  serve                  the embedded cluster alone, headless (see `reconscope serve --help`)
)";

} // namespace

int runConsole(int argc, char *argv[])
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

    ui::MainWindow window;
    window.show();
    return app.exec();
}

} // namespace reconscope::app
