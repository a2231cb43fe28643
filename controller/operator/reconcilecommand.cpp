#include "controller/operator/reconcilecommand.h"

#include "controller/kube/kubeconfig.h"
#include "controller/operator/customappoperator.h"
#include "controller/operator/metricsendpoint.h"
#include "controller/platform/terminationsignals.h"

#include <spdlog/spdlog.h>

#include <QCoreApplication>
#include <QHostInfo>
#include <QRandomGenerator>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace reconscope::controller::operators {

namespace { } // namespace

int ReconcileCommand::run(const ReconcileCommandOptions &options)
{
    // The binary's main() has set up logging (app/logging: --log-level, SPDLOG_LEVEL); a level
    // given to this command directly still applies.
    if (!options.logLevel.isEmpty())
        spdlog::set_level(spdlog::level::from_str(options.logLevel.toStdString()));
    auto kubeconfig = kube::Kubeconfig::load(options.kubeconfig);
    if (!kubeconfig) {
        spdlog::error("{}", kubeconfig.error().message.toStdString());
        return 1;
    }
    auto config = kubeconfig->resolve(options.context);
    if (!config) {
        spdlog::error("{}", config.error().message.toStdString());
        return 1;
    }
    for (const auto &warning : std::as_const(config->warnings))
        spdlog::warn("{}", warning.toStdString());
    const QString ns = options.namespace_ == u"*"
        ? QString()
        : (options.namespace_.isEmpty() ? config->namespace_ : options.namespace_);

    CustomAppOperator::Options operatorOptions;
    operatorOptions.reconciler.namespace_ = ns;
    operatorOptions.reconciler.dryRun = options.dryRun;
    operatorOptions.leaderElection = options.leaderElect;
    operatorOptions.lease.namespace_ = !options.leaseNamespace.isEmpty()
        ? options.leaseNamespace
        : (ns.isEmpty() ? u"default"_s : ns);
    operatorOptions.lease.name = options.leaseName;
    operatorOptions.lease.identity = !options.identity.isEmpty() ? options.identity
                                                                 : QHostInfo::localHostName() + u'_'
            + QString::number(QRandomGenerator::global()->generate(), 16);

    platform::TerminationSignals termination;
    if (!termination.install()) {
        spdlog::error("cannot install signal handlers");
        return 1;
    }
    reconcile::RealClock clock;
    CustomAppOperator op(config.value(), clock, operatorOptions);
    std::unique_ptr<MetricsEndpoint> metrics;
    if (!options.metricsBindAddress.isEmpty() && options.metricsBindAddress != u"0") {
        metrics = std::make_unique<MetricsEndpoint>([&op] { return op.loop().metricsText(); });
        if (!metrics->listen(options.metricsBindAddress)) {
            spdlog::error("{}", metrics->errorString().toStdString());
            return 1;
        }
        spdlog::info("serving metrics on {} (port {})",
                     options.metricsBindAddress.toStdString(),
                     metrics->port());
    }
    QObject::connect(&op, &CustomAppOperator::activeChanged, &op, [](bool active) {
        spdlog::info(active ? "reconciling (this instance holds the lease)"
                            : "standing by (another instance holds the lease)");
    });
    QObject::connect(&termination, &platform::TerminationSignals::received, [] {
        spdlog::info("signal received: shutting down");
        QCoreApplication::quit();
    });
    spdlog::info("reconscope reconcile: server {} context \"{}\" namespace {}{}{}",
                 config->server.toString().toStdString(),
                 config->contextName.toStdString(),
                 ns.isEmpty() ? std::string("<all>") : ns.toStdString(),
                 options.dryRun ? " (dry-run: no writes are sent)" : "",
                 options.leaderElect ? "" : " (no leader election)");
    op.start();
    const int code = QCoreApplication::exec();
    const bool releasing = op.elector() && op.elector()->isLeader();
    if (releasing) {
        // Hand over at once instead of after the lease duration: wait (briefly) for the release.
        QObject::connect(op.elector(),
                         &LeaderElector::leaseReleased,
                         QCoreApplication::instance(),
                         &QCoreApplication::quit);
        QTimer::singleShot(2000, QCoreApplication::instance(), &QCoreApplication::quit);
    }
    op.stop(); // releases the lease
    if (releasing)
        QCoreApplication::exec();
    return code;
}

} // namespace reconscope::controller::operators
