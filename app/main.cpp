#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

namespace {

constexpr auto usageCommands = R"(
Commands:
  (none)                 the console on the embedded cluster, demo scenario running
  serve                  the embedded cluster alone, headless
  watch RESOURCE         print each lifecycle transition as it happens
  reconcile              run the CustomApp reconciler headless
  conflict-lab           run the conflict lab headless
  lint-crd FILE|NAME     lint a CRD's Spec/Status contract
)";

int runGui(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("reconscope"));
    QApplication::setApplicationVersion(QStringLiteral(RECONSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Reconscope: an operator console for Kubernetes custom resources.")
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
    return runGui(argc, argv);
}
