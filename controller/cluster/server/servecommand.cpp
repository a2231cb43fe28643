#include "servecommand.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

int signalPipe[2] = { -1, -1 };

void handleTerminationSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(signalPipe[1], &byte, 1);
}

bool installTerminationHandlers()
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, signalPipe) != 0)
        return false;
    struct sigaction action = {};
    action.sa_handler = handleTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(SIGINT, &action, nullptr) == 0
        && ::sigaction(SIGTERM, &action, nullptr) == 0;
}

void print(const QString &text)
{
    std::fputs(text.toLocal8Bit().constData(), stdout);
    std::fflush(stdout);
}

} // namespace

int ServeCommand::run(const ServeOptions &options, ApiHandlerFactory factory)
{
    if (!QCoreApplication::instance()) {
        std::fputs("reconscope serve: no application object\n", stderr);
        return 2;
    }
    EmbeddedServerOptions serverOptions;
    serverOptions.address = options.address;
    serverOptions.port = options.port;
    serverOptions.kubeconfigPath = options.kubeconfigPath;
    EmbeddedServer server(std::move(factory), serverOptions);
    if (auto started = server.start(); !started) {
        std::fprintf(
            stderr, "reconscope serve: %s\n", started.error().message.toLocal8Bit().constData());
        return 1;
    }
    print(u"Embedded cluster serving at %1\nKubeconfig: %2\n  kubectl --kubeconfig %2 get --raw "
          u"/version\n"
          "Contexts: reconscope-admin (current), reconscope-token, reconscope-viewer\n"_s.arg(
              server.url().toString(), options.kubeconfigPath));

    if (!installTerminationHandlers()) {
        std::fputs("reconscope serve: cannot install signal handlers\n", stderr);
        return 1;
    }
    QSocketNotifier notifier(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, QCoreApplication::instance(), [] {
        char byte = 0;
        [[maybe_unused]] const auto read = ::read(signalPipe[0], &byte, 1);
        QCoreApplication::quit();
    });
    const int code = QCoreApplication::exec();
    server.stop();
    print(u"Embedded cluster stopped\n"_s);
    return code;
}

} // namespace reconscope::controller::cluster
