#include "servecommand.h"

#include <QCoreApplication>
#include <QDir>
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

models::Result<QPair<QHostAddress, quint16>> ServeCommand::parseListenAddress(const QString &text)
{
    using R = models::Result<QPair<QHostAddress, quint16>>;
    QString host = u"127.0.0.1"_s;
    QString portText = text;
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon >= 0) {
        host = text.left(colon);
        portText = text.mid(colon + 1);
        if (host.startsWith(u'[') && host.endsWith(u']'))
            host = host.mid(1, host.size() - 2);
        if (host.isEmpty())
            host = u"127.0.0.1"_s;
        else if (host == u"localhost")
            host = u"127.0.0.1"_s;
    }
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port > 65535)
        return R::failure(u"invalid port in --listen %1"_s.arg(text));
    const QHostAddress address(host);
    if (address.isNull())
        return R::failure(u"invalid address in --listen %1"_s.arg(text));
    return QPair<QHostAddress, quint16>(address, static_cast<quint16>(port));
}

QString ServeCommand::defaultKubeconfigPath()
{
    return QDir::homePath() + u"/.kube/reconscope.kubeconfig"_s;
}

QString ServeCommand::usage()
{
    return u"usage: reconscope serve [--listen 127.0.0.1:PORT] [--kubeconfig-out FILE] [--no-demo]\n"_s;
}

models::Result<ServeOptions> ServeCommand::parseArguments(const QStringList &arguments)
{
    using R = models::Result<ServeOptions>;
    ServeOptions options;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        QString argument = arguments.at(i);
        QString value;
        const qsizetype equals = argument.indexOf(u'=');
        const bool inlineValue = argument.startsWith(u"--") && equals > 0;
        if (inlineValue) {
            value = argument.mid(equals + 1);
            argument = argument.left(equals);
        }
        auto takeValue = [&]() -> bool {
            if (inlineValue)
                return true;
            if (i + 1 >= arguments.size())
                return false;
            value = arguments.at(++i);
            return true;
        };
        if (argument == u"--listen") {
            if (!takeValue())
                return R::failure(u"--listen needs HOST:PORT"_s);
            const auto listen = parseListenAddress(value);
            if (!listen)
                return listen.error();
            options.address = listen->first;
            options.port = listen->second;
        } else if (argument == u"--kubeconfig-out") {
            if (!takeValue() || value.isEmpty())
                return R::failure(u"--kubeconfig-out needs a file"_s);
            options.kubeconfigPath = value;
        } else if (argument == u"--no-demo" && !inlineValue) {
            options.demo = false;
        } else {
            return R::failure(u"unknown argument %1\n%2"_s.arg(arguments.at(i), usage()));
        }
    }
    if (options.kubeconfigPath.isEmpty())
        options.kubeconfigPath = defaultKubeconfigPath();
    return options;
}

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
