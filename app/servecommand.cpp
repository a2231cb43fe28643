#include "controller/cluster/server/servecommand.h"
#include "app/cli/servearguments.h"
#include "app/commands.h"
#include "controller/cluster/churn.h"
#include "controller/cluster/sim/embeddedcluster.h"

#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace cluster = reconscope::controller::cluster;

namespace reconscope::app {

namespace {

struct ChurnOptions
{
    double rate = 0;
    QString resource = u"customapps"_s;
};

// Takes `--churn RATE` and `--churn-resource R` (also as --opt=value) out of the arguments.
models::Result<ChurnOptions> takeChurnOptions(QStringList &arguments)
{
    ChurnOptions options;
    for (qsizetype i = 0; i < arguments.size();) {
        QString argument = arguments.at(i);
        QString value;
        qsizetype taken = 1;
        if (const qsizetype equals = argument.indexOf(u'='); equals > 0) {
            value = argument.mid(equals + 1);
            argument = argument.left(equals);
        } else if (i + 1 < arguments.size()) {
            value = arguments.at(i + 1);
            taken = 2;
        }
        if (argument == u"--churn") {
            bool ok = false;
            options.rate = value.toDouble(&ok);
            if (!ok || options.rate < 0)
                return models::Result<ChurnOptions>::failure(
                    u"--churn needs a number of status changes per second"_s);
        } else if (argument == u"--churn-resource") {
            if (value.isEmpty())
                return models::Result<ChurnOptions>::failure(
                    u"--churn-resource needs a resource"_s);
            options.resource = value;
        } else {
            ++i;
            continue;
        }
        arguments.remove(i, taken);
    }
    return options;
}

} // namespace

int runServe(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    auto arguments = argumentsAfterCommand(argc, argv);
    if (arguments.contains(u"--help"_s) || arguments.contains(u"-h"_s)) {
        std::fputs(serveUsage().toLocal8Bit().constData(), stdout);
        std::fputs(
            "  --churn RATE            the server writes RATE status changes per second to\n"
            "                          the objects itself (see POST /debug/reconscope/churn)\n"
            "  --churn-resource R      the resource churned (default customapps)\n",
            stdout);
        return 0;
    }
    const auto churn = takeChurnOptions(arguments);
    if (!churn) {
        std::fprintf(
            stderr, "reconscope serve: %s\n", churn.error().message.toLocal8Bit().constData());
        return 2;
    }
    const auto options = parseServeArguments(arguments);
    if (!options) {
        std::fprintf(
            stderr, "reconscope serve: %s\n", options.error().message.toLocal8Bit().constData());
        return 2;
    }
    cluster::EmbeddedClusterOptions clusterOptions;
    clusterOptions.demo = options->demo;
    // The churn mutator and its endpoint (/debug/reconscope/churn, admins only) around the
    // cluster's API.
    auto factory = [inner = cluster::embeddedClusterFactory(clusterOptions),
                    churn = churn.value()](cluster::EmbeddedServer &server) -> cluster::ApiHandler {
        cluster::ApiHandler handler = inner(server);
        cluster::Cluster *embedded = cluster::clusterOf(server);
        auto *mutator = new cluster::ChurnMutator(embedded, embedded);
        if (churn.rate > 0) {
            if (auto started = mutator->start(churn.resource, churn.rate); !started)
                std::fprintf(stderr,
                             "reconscope serve: --churn: %s\n",
                             started.error().message.toLocal8Bit().constData());
        }
        return cluster::withChurnEndpoint(std::move(handler), mutator);
    };
    return cluster::ServeCommand::run(options.value(), factory);
}

} // namespace reconscope::app
