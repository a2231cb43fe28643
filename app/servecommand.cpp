#include "controller/cluster/server/servecommand.h"
#include "app/commands.h"
#include "controller/cluster/sim/embeddedcluster.h"

#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace cluster = reconscope::controller::cluster;

namespace reconscope::app {

int runServe(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    const auto arguments = argumentsAfterCommand(argc, argv);
    if (arguments.contains(u"--help"_s) || arguments.contains(u"-h"_s)) {
        std::fputs(cluster::ServeCommand::usage().toLocal8Bit().constData(), stdout);
        return 0;
    }
    const auto options = cluster::ServeCommand::parseArguments(arguments);
    if (!options) {
        std::fprintf(
            stderr, "reconscope serve: %s\n", options.error().message.toLocal8Bit().constData());
        return 2;
    }
    cluster::EmbeddedClusterOptions clusterOptions;
    clusterOptions.demo = options->demo;
    return cluster::ServeCommand::run(options.value(),
                                      cluster::embeddedClusterFactory(clusterOptions));
}

} // namespace reconscope::app
