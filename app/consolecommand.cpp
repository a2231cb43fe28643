#include "app/commands.h"
#include "app/commandtable.h"
#include "app/consolelogging.h"
#include "controller/console/consolesession.h"
#include "controller/console/scenarioplayer.h"
#include "controller/kube/eventdispatcher.h"
#include "ui/detailpane.h"
#include "ui/logpane.h"
#include "ui/mainwindow.h"
#include "ui/replaywindow.h"
#include "ui/resourcetablepanel.h"
#include "ui/stategraphpanel.h"
#include "ui/stategraphscene.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

using namespace Qt::StringLiterals;

namespace reconscope::app {

namespace {

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
    QCommandLineOption screenshotPanel{ u"screenshot-panel"_s,
                                        u"What the screenshot shows: window (default), labs "
                                        "(the window in the Labs workspace), or one panel: "
                                        "graph, table, detail, reconciler, scenario, patch, raw, "
                                        "conflict, lint, log, problems, overview."_s,
                                        u"panel"_s,
                                        u"window"_s };
    QCommandLineOption screenshotMidTransition{
        u"screenshot-mid-transition"_s,
        u"Take the screenshot while the state graph animates a transition."_s
    };
    QCommandLineOption select{ u"select"_s,
                               u"Select this object (NAMESPACE/NAME) once it is listed."_s,
                               u"key"_s };
    QCommandLineOption detailTab{ u"detail-tab"_s,
                                  u"Show this tab of the detail pane: overview, timeline, raw, "
                                  "events, owned, dryrun."_s,
                                  u"tab"_s };
    QCommandLineOption scenarioSpeed{
        u"scenario-speed"_s, u"Demo scenario speed, 0.5 to 8 (default 1)."_s, u"factor"_s, u"1"_s
    };
    QCommandLineOption noReconciler{
        u"no-reconciler"_s,
        u"Demo without the embedded CustomApp reconciler: objects stay as written (for your own "
        "operator, or to see what the reconciler's dry run would write)."_s
    };
    QCommandLineOption recording{ u"recording"_s,
                                  u"Open this recording (or kubectl capture; repeat to merge them) "
                                  "read-only with a timeline, instead of a cluster."_s,
                                  u"file"_s };
    QCommandLineOption screenshotAfter{ u"screenshot-after"_s,
                                        u"Milliseconds to wait before the screenshot (default "
                                        "3000)."_s,
                                        u"ms"_s,
                                        u"3000"_s };

    void addTo(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(
            u"Reconscope: an operator console for Kubernetes custom resources.\n\n"_s
            + commandListText());
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({ kubeconfig,
                            context,
                            namespace_,
                            screenshot,
                            screenshotAfter,
                            select,
                            detailTab,
                            scenarioSpeed,
                            screenshotPanel,
                            screenshotMidTransition,
                            noReconciler,
                            recording });
    }
};

// --help and --version must work without a display: they are answered by a QCoreApplication.
bool asksForHelpOrVersion(const QCommandLineParser &parser)
{
    for (const QString &name : { u"help"_s, u"help-all"_s, u"version"_s }) {
        if (parser.isSet(name))
            return true;
    }
    return false;
}

// The options QGuiApplication takes out of argv itself (with a value), accepted by the check of
// the command line that runs before the application object exists.
void addQtGuiOptions(QCommandLineParser &parser)
{
    for (const QString &name : { u"platform"_s,
                                 u"platformpluginpath"_s,
                                 u"platformtheme"_s,
                                 u"display"_s,
                                 u"style"_s,
                                 u"stylesheet"_s,
                                 u"qwindowgeometry"_s,
                                 u"qwindowtitle"_s,
                                 u"qwindowicon"_s }) {
        QCommandLineOption option(name, QString(), u"value"_s);
        option.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(option);
    }
}

// Why no window can be opened, or empty when a display (or a Qt platform) is named.
QString missingDisplay(const QCommandLineParser &parser)
{
    if (parser.isSet(u"platform"_s) || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
        || !qEnvironmentVariableIsEmpty("DISPLAY")
        || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return {};
    return u"no display to open the console on: set DISPLAY (or run under xvfb-run), or use a "
           "headless command (reconscope --help lists them)"_s;
}

// A display that is named but cannot be reached makes QGuiApplication warn (qt.qpa.*) and then
// call qFatal, whose abort the crash handler would report as a crash. While the application object
// is made, the platform's messages are held; a fatal one is said in one line instead (exit code
// 1), and the held ones go to the previous handler once a window system is up.
struct HeldMessage
{
    QtMsgType type;
    QByteArray category;
    QString message;
};
QtMessageHandler previousHandler = nullptr;
QList<HeldMessage> heldMessages;

void displayFailureHandler(QtMsgType type,
                           const QMessageLogContext &context,
                           const QString &message)
{
    if (type == QtFatalMsg) {
        Q_UNUSED(message);
        const QByteArray display = qgetenv("WAYLAND_DISPLAY").isEmpty()
            ? qgetenv("DISPLAY")
            : qgetenv("WAYLAND_DISPLAY");
        std::fprintf(stderr,
                     "reconscope: cannot open a window on display \"%s\": check DISPLAY, or use "
                     "a headless command (reconscope --help lists them)\n",
                     display.constData());
        std::_Exit(1);
    }
    if (context.category && std::string_view(context.category).starts_with("qt.qpa")) {
        heldMessages.append({ type, QByteArray(context.category), message });
        return;
    }
    if (previousHandler)
        previousHandler(type, context, message);
}

void releaseHeldMessages()
{
    qInstallMessageHandler(previousHandler);
    for (const HeldMessage &held : std::exchange(heldMessages, {})) {
        const QMessageLogContext context(nullptr, 0, nullptr, held.category.constData());
        if (previousHandler)
            previousHandler(held.type, context, held.message);
    }
}

// The command line checked before any application object exists: a usage error or a missing
// display must be said plainly, not met by a window system's abort. Returns the exit code when the
// program must stop here (an error); sets *helpOrVersion when --help or --version was asked for.
std::optional<int>
checkCommandLine(int argc, char *argv[], const ConsoleOptions &options, bool *helpOrVersion)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments += QString::fromLocal8Bit(argv[i]);
    QCommandLineParser check;
    // Qt's own options are single-dash words (-platform offscreen).
    check.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    options.addTo(check);
    addQtGuiOptions(check);
    if (!check.parse(arguments) || !check.positionalArguments().isEmpty()) {
        const QString error = check.positionalArguments().isEmpty()
            ? check.errorText()
            : u"unexpected argument '%1'"_s.arg(check.positionalArguments().constFirst());
        std::fprintf(stderr,
                     "reconscope: %s\n%s",
                     qPrintable(error),
                     commandListText().toLocal8Bit().constData());
        return 2;
    }
    *helpOrVersion = asksForHelpOrVersion(check);
    if (!*helpOrVersion) {
        if (const QString why = missingDisplay(check); !why.isEmpty()) {
            std::fprintf(stderr, "reconscope: %s\n", qPrintable(why));
            return 1;
        }
    }
    return std::nullopt;
}

// The options that shape the session and the window once both exist (scenario speed, detail tab,
// selection); the exit code when one is wrong.
std::optional<int> applyViewOptions(const QCommandLineParser &parser,
                                    const ConsoleOptions &options,
                                    controller::console::ConsoleSession &session,
                                    ui::MainWindow &window)
{
    bool speedOk = false;
    const double speed = parser.value(options.scenarioSpeed).toDouble(&speedOk);
    if (!speedOk || speed < controller::console::ScenarioPlayer::MinSpeed
        || speed > controller::console::ScenarioPlayer::MaxSpeed) {
        std::fprintf(stderr, "reconscope: --scenario-speed needs a factor from 0.5 to 8\n");
        return 2;
    }
    session.scenarioPlayer()->setSpeed(speed);
    if (parser.isSet(options.detailTab)
        && !window.detailPane()->showTab(parser.value(options.detailTab))) {
        std::fprintf(
            stderr, "reconscope: no detail tab %s\n", qPrintable(parser.value(options.detailTab)));
        return 2;
    }
    if (parser.isSet(options.select)) {
        // The object is selected as soon as the table lists it.
        const QString key = parser.value(options.select);
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = QObject::connect(&session,
                                       &controller::console::ConsoleSession::objectsChanged,
                                       &window,
                                       [&window, key, connection] {
                                           if (window.tablePanel()->selectKey(key))
                                               QObject::disconnect(*connection);
                                       });
    }
    return std::nullopt;
}

// --screenshot: the panel saved as a PNG `after` ms from now (mid-transition: at the first moment,
// within 20 s, a move is being animated), then the program exits. The exit code when the panel
// named does not exist.
std::optional<int> scheduleScreenshot(const QCommandLineParser &parser,
                                      const ConsoleOptions &options,
                                      ui::MainWindow &window,
                                      int after)
{
    const QString file = parser.value(options.screenshot);
    const QString what = parser.value(options.screenshotPanel);
    QWidget *target = window.showPanel(what);
    if (!target) {
        std::fprintf(stderr,
                     "reconscope: --screenshot-panel is one of %s\n",
                     qPrintable(ui::MainWindow::panelNames().join(u", "_s)));
        return 2;
    }
    const bool midTransition = parser.isSet(options.screenshotMidTransition);
    QTimer::singleShot(after, &window, [&window, target, file, midTransition] {
        auto *poll = new QTimer(&window);
        auto *waited = new QElapsedTimer;
        waited->start();
        const auto take = [&window, target, file, midTransition, poll, waited] {
            if (midTransition && window.graphPanel()->scene()->animatingEdges().isEmpty()
                && waited->elapsed() < 20000)
                return;
            poll->stop();
            delete waited;
            const bool saved = target->grab().save(file, "PNG");
            if (!saved)
                std::fprintf(stderr, "reconscope: cannot write %s\n", qPrintable(file));
            QCoreApplication::exit(saved ? 0 : 1);
        };
        QObject::connect(poll, &QTimer::timeout, &window, take);
        poll->start(15);
    });
    return std::nullopt;
}

// --recording: the replay window alone (no cluster, no session), with --select and --screenshot.
int runRecording(const QCommandLineParser &parser, const ConsoleOptions &options, int after)
{
    QString error;
    std::unique_ptr<ui::ReplayWindow> window(
        ui::ReplayWindow::open(parser.values(options.recording), nullptr, &error));
    if (!window) {
        std::fprintf(stderr, "reconscope: %s\n", qPrintable(error));
        return 1;
    }
    window->setAttribute(Qt::WA_DeleteOnClose, false);
    window->show();
    if (parser.isSet(options.select))
        window->tablePanel()->selectKey(parser.value(options.select));
    if (parser.isSet(options.screenshot)) {
        const QString file = parser.value(options.screenshot);
        QTimer::singleShot(after, window.get(), [&window, file] {
            const bool saved = window->grab().save(file, "PNG");
            if (!saved)
                std::fprintf(stderr, "reconscope: cannot write %s\n", qPrintable(file));
            QCoreApplication::exit(saved ? 0 : 1);
        });
    }
    return QApplication::exec();
}

} // namespace

int runConsole(int argc, char *argv[])
{
    const ConsoleOptions options;
    bool helpOrVersion = false;
    if (const std::optional<int> stop = checkCommandLine(argc, argv, options, &helpOrVersion))
        return *stop;
    if (helpOrVersion) {
        QCoreApplication app(argc, argv);
        setApplicationInfo();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(app); // prints and exits
        return 0;
    }

    previousHandler = qInstallMessageHandler(displayFailureHandler);
    QApplication app(argc, argv);
    releaseHeldMessages();
    // The GUI thread keeps GLib's event dispatcher; the informers' and network threads take Qt's.
    controller::kube::preferQtEventDispatcher();
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

    if (parser.isSet(options.recording))
        return runRecording(parser, options, screenshotAfter);

    controller::console::ConsoleSession session;
    session.setNamespaceFilter(parser.value(options.namespace_));
    session.setRunReconciler(!parser.isSet(options.noReconciler));
    ui::MainWindow window(&session);
    // Every message also goes to the log pane and to a rotating file in the user's data directory.
    const ConsoleLogging logSinks(window.logPane()->sink());
    QObject::connect(&session,
                     &controller::console::ConsoleSession::connectionFailed,
                     &window,
                     [](const QString &message) {
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
    if (const std::optional<int> stop = applyViewOptions(parser, options, session, window))
        return *stop;
    window.show();
    if (parser.isSet(options.screenshot)) {
        if (const std::optional<int> stop
            = scheduleScreenshot(parser, options, window, screenshotAfter))
            return *stop;
    }
    return app.exec();
}

} // namespace reconscope::app
