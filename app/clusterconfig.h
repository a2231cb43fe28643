#pragma once

#include "controller/kube/clientconfig.h"
#include "models/result.h"

#include <QString>

namespace reconscope::app {

// The cluster a command talks to: the kubeconfig at `path` (kubectl's precedence when empty:
// $KUBECONFIG, ~/.kube/config) resolved for `context` (empty: current-context). Its warnings are
// printed as "reconscope COMMAND: warning: ..."; an error is the caller's to print.
models::Result<controller::kube::ClientConfig>
loadClientConfig(const char *command, const QString &path, const QString &context);

} // namespace reconscope::app
