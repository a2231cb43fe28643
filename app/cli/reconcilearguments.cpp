#include "app/cli/reconcilearguments.h"

#include "controller/operator/metricsendpoint.h"

#include <QHostAddress>

using namespace Qt::StringLiterals;
namespace operators = reconscope::controller::operators;
using operators::ReconcileCommandOptions;

namespace reconscope::app {

QString reconcileUsage()
{
    return u"Usage: reconscope reconcile [options]\n"
           "Runs the CustomApp reconciler headless against the cluster a kubeconfig names.\n\n"
           "  --kubeconfig FILE            kubeconfig (default: $KUBECONFIG, ~/.kube/config)\n"
           "  --context NAME               context (default: current-context)\n"
           "  -n, --namespace NS           namespace to reconcile (default: the context's;\n"
           "                               -A / --all-namespaces for all)\n"
           "  --dry-run                    log the writes (as JSON patches) without sending them\n"
           "  --replay FILE                a dry run over a recording (or kubectl capture; the\n"
           "                               option repeats) played into a cluster of its own:\n"
           "                               what it would have written after each change\n"
           "  -o json                      with --replay: one JSON object a step\n"
           "  --metrics-bind-address ADDR  serve Prometheus metrics on ADDR (host:port, \"0\" "
           "off)\n"
           "  --log-level LEVEL            trace, debug, info (default), warn, error, off\n"
           "  --leader-elect=false         do not take the Lease (default: take it, so that a\n"
           "                               local run never fights the deployed operator)\n"
           "  --leader-election-namespace NS, --leader-election-id NAME, --identity ID\n"_s;
}

models::Result<ReconcileCommandOptions> parseReconcileArguments(const QStringList &arguments)
{
    ReconcileCommandOptions options;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        QString argument = arguments[i];
        QString value;
        bool hasInlineValue = false;
        if (argument.startsWith(u"--") && argument.contains(u'=')) {
            value = argument.mid(argument.indexOf(u'=') + 1);
            argument = argument.left(argument.indexOf(u'='));
            hasInlineValue = true;
        }
        auto next = [&](QString *out) -> bool {
            if (hasInlineValue) {
                *out = value;
                return true;
            }
            if (i + 1 >= arguments.size())
                return false;
            *out = arguments[++i];
            return true;
        };
        QString *target = nullptr;
        if (argument == u"--kubeconfig")
            target = &options.kubeconfig;
        else if (argument == u"--context")
            target = &options.context;
        else if (argument == u"-n" || argument == u"--namespace")
            target = &options.namespace_;
        else if (argument == u"--metrics-bind-address")
            target = &options.metricsBindAddress;
        else if (argument == u"--log-level")
            target = &options.logLevel;
        else if (argument == u"--leader-election-namespace")
            target = &options.leaseNamespace;
        else if (argument == u"--leader-election-id")
            target = &options.leaseName;
        else if (argument == u"--identity")
            target = &options.identity;
        QString file;
        if (argument == u"--replay") {
            if (!next(&file) || file.isEmpty())
                return models::Result<ReconcileCommandOptions>::failure(u"--replay needs a file"_s);
            options.replay << file;
            options.dryRun = true;
            continue;
        }
        if (argument == u"-o" || argument == u"--output") {
            if (!next(&file) || file != u"json")
                return models::Result<ReconcileCommandOptions>::failure(
                    u"%1 takes json"_s.arg(argument));
            options.json = true;
            continue;
        }
        if (target) {
            if (!next(target) || target->isEmpty())
                return models::Result<ReconcileCommandOptions>::failure(
                    u"%1 needs a value"_s.arg(argument));
            continue;
        }
        if (argument == u"-A" || argument == u"--all-namespaces") {
            options.namespace_ = u"*"_s;
        } else if (argument == u"--dry-run") {
            options.dryRun = !hasInlineValue || value == u"true";
        } else if (argument == u"--leader-elect") {
            if (hasInlineValue && value != u"true" && value != u"false")
                return models::Result<ReconcileCommandOptions>::failure(
                    u"--leader-elect takes true or false"_s);
            options.leaderElect = !hasInlineValue || value == u"true";
        } else {
            return models::Result<ReconcileCommandOptions>::failure(
                u"unknown argument \"%1\""_s.arg(arguments[i]));
        }
    }
    if (options.json && options.replay.isEmpty())
        return models::Result<ReconcileCommandOptions>::failure(u"-o json goes with --replay"_s);
    if (!options.replay.isEmpty() && !options.kubeconfig.isEmpty())
        return models::Result<ReconcileCommandOptions>::failure(
            u"--replay plays into a cluster of its own: leave out --kubeconfig"_s);
    static const QStringList levels{ u"trace"_s, u"debug"_s, u"info"_s,
                                     u"warn"_s,  u"error"_s, u"off"_s };
    if (!options.logLevel.isEmpty() && !levels.contains(options.logLevel))
        return models::Result<ReconcileCommandOptions>::failure(
            u"unknown log level \"%1\" (want %2)"_s.arg(options.logLevel, levels.join(u", "_s)));
    if (!options.metricsBindAddress.isEmpty() && options.metricsBindAddress != u"0") {
        QHostAddress address;
        quint16 port = 0;
        if (!operators::MetricsEndpoint::parseBindAddress(
                options.metricsBindAddress, &address, &port))
            return models::Result<ReconcileCommandOptions>::failure(
                u"invalid --metrics-bind-address \"%1\" (want host:port)"_s.arg(
                    options.metricsBindAddress));
    }
    return options;
}

} // namespace reconscope::app
