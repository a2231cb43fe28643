#include "app/cli/servearguments.h"

#include <QDir>

using namespace Qt::StringLiterals;
using reconscope::controller::cluster::ServeOptions;

namespace reconscope::app {

models::Result<QPair<QHostAddress, quint16>> parseListenAddress(const QString &text)
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

QString defaultServeKubeconfigPath()
{
    return QDir::homePath() + u"/.kube/reconscope.kubeconfig"_s;
}

QString serveUsage()
{
    return u"usage: reconscope serve [--listen 127.0.0.1:PORT] [--kubeconfig-out FILE] [--no-demo]\n"_s;
}

models::Result<ServeOptions> parseServeArguments(const QStringList &arguments)
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
            return R::failure(u"unknown argument %1\n%2"_s.arg(arguments.at(i), serveUsage()));
        }
    }
    if (options.kubeconfigPath.isEmpty())
        options.kubeconfigPath = defaultServeKubeconfigPath();
    return options;
}

} // namespace reconscope::app
