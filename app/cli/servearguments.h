#pragma once

#include "controller/cluster/server/servecommand.h"
#include "models/result.h"

#include <QHostAddress>
#include <QPair>
#include <QString>
#include <QStringList>

namespace reconscope::app {

// The command line of `reconscope serve`: the options it gives ServeCommand::run.
// The arguments after "serve".
models::Result<controller::cluster::ServeOptions> parseServeArguments(const QStringList &arguments);
// "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT".
models::Result<QPair<QHostAddress, quint16>> parseListenAddress(const QString &text);
QString defaultServeKubeconfigPath(); // ~/.kube/reconscope.kubeconfig
QString serveUsage();

} // namespace reconscope::app
