#include "controller/operator/reconcilecommand.h"
#include "app/cli/reconcilearguments.h"
#include "app/commands.h"

#include <QCoreApplication>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace operators = reconscope::controller::operators;

namespace reconscope::app {

int runReconcile(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    const auto arguments = argumentsAfterCommand(argc, argv);
    if (arguments.contains(u"--help"_s) || arguments.contains(u"-h"_s)) {
        std::fputs(reconcileUsage().toLocal8Bit().constData(), stdout);
        return 0;
    }
    const auto options = parseReconcileArguments(arguments);
    if (!options) {
        std::fprintf(stderr,
                     "reconscope reconcile: %s\n%s",
                     options.error().message.toLocal8Bit().constData(),
                     reconcileUsage().toLocal8Bit().constData());
        return 2;
    }
    return operators::ReconcileCommand::run(options.value());
}

} // namespace reconscope::app
