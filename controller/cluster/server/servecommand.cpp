#include "servecommand.h"

#include "controller/platform/terminationsignals.h"

#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

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

    platform::TerminationSignals termination;
    if (!termination.install()) {
        std::fputs("reconscope serve: cannot install signal handlers\n", stderr);
        return 1;
    }
    QObject::connect(
        &termination, &platform::TerminationSignals::received, &QCoreApplication::quit);
    const int code = QCoreApplication::exec();
    server.stop();
    print(u"Embedded cluster stopped\n"_s);
    return code;
}

} // namespace reconscope::controller::cluster
