#pragma once

#include "controller/operator/reconcilecommand.h"
#include "models/result.h"

#include <QString>
#include <QStringList>

namespace reconscope::app {

// The command line of `reconscope reconcile`: the text --help prints and the options it gives
// ReconcileCommand::run. `arguments` are those after the command word.
QString reconcileUsage();
models::Result<controller::operators::ReconcileCommandOptions>
parseReconcileArguments(const QStringList &arguments);

} // namespace reconscope::app
