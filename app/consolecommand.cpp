#include "app/commands.h"
#include "app/consolelogging.h"
#include "ui/consolesession.h"
#include "ui/logpane.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::app {

namespace {

constexpr auto usageCommands = R"(
Commands:
  (none)                 the console on the embedded cluster, demo scenario running
  serve                  the embedded cluster alone, headless (see `reconscope serve --help`)
  conflict-lab           GitOps vs reconciler under three API designs (see `reconscope conflict-lab --help`)
)";

struct ConsoleOptions
{
    QCommandLineOption kubeconfig{ u"kubeconfig"_s,
                                   u"Open the console on a real cluster through this kubeconfig "
                                   "(read-only until writes are enabled for the context)."_s,
                                   u"file"_s };
    QCommandLineOption context{ u"context"_s,
                                u"The kubeconfig context (default: current-context)."_s,
                                u"name"_s };
    QCommandLineOption namespace_{ { u"n"_s, u"namespace"_s },
                                   u"Only this namespace (default: all)."_s,
                                   u"name"_s };
    QCommandLineOption screenshot{ u"screenshot"_s,
                                   u"Save a PNG of the main window to this file and exit."_s,
                                   u"file"_s };
    QCommandLineOption screenshotAfter{ u"screenshot-after"_s,
                                        u"Milliseconds to wait before the screenshot (default "
                                        "3000)."_s,
                                        u"ms"_s,
                                        u"3000"_s };

    void addTo(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(
            u"Reconscope: an operator console for Kubernetes custom resources."_s
            + QString::fromLatin1(usageCommands));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({ kubeconfig, context, namespace_, screenshot, screenshotAfter });
    }
};

// --help and --version must work without a display: they are answered by a QCoreApplication.
bool asksForHelpOrVersion(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        for (const char *word : { "-h", "--help", "-?", "--help-all", "-v", "--version" }) {
            if (std::strcmp(arg, word) == 0)
                return true;
        }
    }
    return false;
}

} // namespace

int runConsole(int argc, char *argv[])
{
    const ConsoleOptions options;
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(app); // prints and exits
        return 0;
    }

    QApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app);

    bool afterOk = false;
    const int screenshotAfter = parser.value(options.screenshotAfter).toInt(&afterOk);
    if (!afterOk || screenshotAfter < 0) {
        std::fprintf(stderr, "reconscope: --screenshot-after needs milliseconds\n");
        return 2;
    }

    ui::ConsoleSession session;
    session.setNamespaceFilter(parser.value(options.namespace_));
    ui::MainWindow window(&session);
    // Every message also goes to the log pane and to a rotating file in the user's data directory.
    const ConsoleLogging logSinks(window.logPane()->sink());
    QObject::connect(
        &session, &ui::ConsoleSession::connectionFailed, &window, [](const QString &message) {
            std::fprintf(stderr, "reconscope: %s\n", qPrintable(message));
        });

    models::Status<> started;
    if (parser.isSet(options.kubeconfig) || parser.isSet(options.context))
        started = session.openKubeconfig(parser.value(options.kubeconfig),
                                         parser.value(options.context));
    else
        started = session.startDemo();
    if (!started.ok()) {
        std::fprintf(stderr, "reconscope: %s\n", qPrintable(started.error().message));
        return 1;
    }
    window.show();

    if (parser.isSet(options.screenshot)) {
        const QString file = parser.value(options.screenshot);
        QTimer::singleShot(screenshotAfter, &window, [&window, file] {
            const bool saved = window.grab().save(file, "PNG");
            if (!saved)
                std::fprintf(stderr, "reconscope: cannot write %s\n", qPrintable(file));
            QCoreApplication::exit(saved ? 0 : 1);
        });
    }
    return app.exec();
}

} // namespace reconscope::app
