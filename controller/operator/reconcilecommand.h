#pragma once

#include <QString>
#include <QStringList>

namespace reconscope::controller::operators {

// `reconscope reconcile`: the CustomApp operator, headless, against any cluster a kubeconfig
// names (kind, the embedded cluster, a real one). The command line that fills these options is
// parsed in app/ (app/cli/reconcilearguments.h).
struct ReconcileCommandOptions
{
    QString kubeconfig; // empty: kubectl's precedence ($KUBECONFIG, ~/.kube/config)
    QString context; // empty: current-context
    QString namespace_; // empty: the context's namespace; "*" for all namespaces
    bool dryRun = false;
    // Recordings (or kubectl captures): the dry run over their replay instead of a cluster
    // (labs::ReplayDryRun, run from app/); implies dryRun.
    QStringList replay;
    bool json = false; // -o json: the replay's steps one JSON object a line
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
    // Runs until SIGINT/SIGTERM (needs a QCoreApplication); returns the exit code.
    static int run(const ReconcileCommandOptions &options);
};

} // namespace reconscope::controller::operators
