// reconscope: one binary, several commands (shared/design.md). main() only picks the command; each
// command's file wires the layers, and the logic lives in the controller and ui libraries.
#include "app/commands.h"
#include "app/commandtable.h"
#include "app/crashhandler.h"
#include "app/logging.h"
#include "controller/kube/eventdispatcher.h"
#include "controller/platform/allocator.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::app {

void setApplicationInfo()
{
    QCoreApplication::setApplicationName(u"reconscope"_s);
    QCoreApplication::setOrganizationName(u"reconscope"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(RECONSCOPE_VERSION));
}

QStringList argumentsAfterCommand(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 2; i < argc; ++i)
        arguments += QString::fromLocal8Bit(argv[i]);
    return arguments;
}

} // namespace reconscope::app

int main(int argc, char *argv[])
{
    using namespace reconscope::app;
    reconscope::controller::platform::tuneAllocator(); // before any thread starts
    crashhandler::install(); // a crash report without secrets, for every command
    // --log-level LEVEL and SPDLOG_LEVEL, for every command (removed from argv here).
    if (const QString error = logging::configure(argc, argv); !error.isEmpty()) {
        std::fprintf(stderr, "reconscope: %s\n", error.toLocal8Bit().constData());
        return 2;
    }
    if (argc > 1) {
        for (const Command &command : commandTable()) {
            if (std::strcmp(argv[1], command.word) == 0) {
                // No GUI: every thread, the main one included, on Qt's event dispatcher.
                reconscope::controller::kube::preferQtEventDispatcher();
                return command.run(argc, argv);
            }
        }
        // A word that is no command is a mistake, not a request for the console.
        if (argv[1][0] != '-') {
            std::fprintf(stderr,
                         "reconscope: unknown command '%s'\n%s",
                         argv[1],
                         commandListText().toLocal8Bit().constData());
            return 2;
        }
    }
    return runConsole(argc, argv);
}
