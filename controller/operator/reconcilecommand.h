#pragma once

#include "models/result.h"

#include <QString>
#include <QStringList>

namespace reconscope::controller::operators {

// `reconscope reconcile`: the CustomApp operator, headless, against any cluster a kubeconfig
// names (kind, the embedded cluster, a real one).
struct ReconcileCommandOptions
{
    QString kubeconfig; // empty: kubectl's precedence ($KUBECONFIG, ~/.kube/config)
    QString context; // empty: current-context
    QString namespace_; // empty: the context's namespace; "*" for all namespaces
    bool dryRun = false;
    QString metricsBindAddress; // empty or "0": no metrics endpoint
    QString logLevel; // trace, debug, info, warn, error, off; empty: as set up (app/logging)
    bool leaderElect = true;
    QString leaseNamespace; // empty: the namespace watched (default when watching all)
    QString leaseName = QStringLiteral("customapp-operator");
    QString identity; // empty: host name + random suffix
};

class ReconcileCommand
{
public:
    static QString usage();
    // `arguments` are those after the command word.
    static models::Result<ReconcileCommandOptions> parseArguments(const QStringList &arguments);
    // Runs until SIGINT/SIGTERM (needs a QCoreApplication); returns the exit code.
    static int run(const ReconcileCommandOptions &options);
};

} // namespace reconscope::controller::operators
