#pragma once

#include "embeddedserver.h"
#include "models/result.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace reconscope::controller::cluster {

// `reconscope serve [--listen 127.0.0.1:PORT] [--kubeconfig-out FILE] [--no-demo]`
struct ServeOptions
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;
    QString kubeconfigPath; // default: defaultKubeconfigPath()
    bool demo = true;
};

class ServeCommand
{
public:
    // The arguments after "serve".
    static models::Result<ServeOptions> parseArguments(const QStringList &arguments);
    // "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT".
    static models::Result<QPair<QHostAddress, quint16>> parseListenAddress(const QString &text);
    static QString defaultKubeconfigPath(); // ~/.kube/reconscope.kubeconfig
    static QString usage();

    // Runs the embedded cluster until SIGINT/SIGTERM on the running QCoreApplication; prints the
    // URL and how to use the kubeconfig. Returns the process exit code.
    static int run(const ServeOptions &options, ApiHandlerFactory factory);
};

} // namespace reconscope::controller::cluster
