#pragma once

#include "embeddedserver.h"

#include <QHostAddress>
#include <QString>

namespace reconscope::controller::cluster {

// What `reconscope serve [--listen 127.0.0.1:PORT] [--kubeconfig-out FILE] [--no-demo]` runs;
// app/cli/servearguments.h parses that command line.
struct ServeOptions
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;
    QString kubeconfigPath; // where the kubeconfig is written
    bool demo = true;
};

class ServeCommand
{
public:
    // Runs the embedded cluster until SIGINT/SIGTERM on the running QCoreApplication; prints the
    // URL and how to use the kubeconfig. Returns the process exit code.
    static int run(const ServeOptions &options, ApiHandlerFactory factory);
};

} // namespace reconscope::controller::cluster
