#include "controller/operator/reconcilecommand.h"
#include "app/cli/reconcilearguments.h"
#include "app/commands.h"
#include "controller/labs/replaydryrun.h"
#include "controller/platform/terminationsignals.h"
#include "controller/record/recordingset.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>

using namespace Qt::StringLiterals;
namespace operators = reconscope::controller::operators;
namespace clabs = reconscope::controller::labs;
namespace record = reconscope::controller::record;

namespace reconscope::app {

namespace {

void printStep(const clabs::DryRunStep &step, bool json)
{
    const QString time = step.time.toString(Qt::ISODate);
    if (json) {
        nlohmann::json line{ { "step", step.index },
                             { "time", time.toStdString() },
                             { "key", step.key.toStdString() },
                             { "change", step.change.toStdString() },
                             { "outcome", step.outcome.toStdString() },
                             { "writes", nlohmann::json::array() } };
        if (step.timeEstimated)
            line["timeEstimated"] = true;
        for (const operators::PlannedWrite &write : step.writes)
            line["writes"].push_back({ { "verb", write.verb.toStdString() },
                                       { "path", write.path.toStdString() },
                                       { "diff", write.diff } });
        std::puts(line.dump().c_str());
    } else {
        std::printf("step %lld  %s%s  %s %s: %s\n",
                    static_cast<long long>(step.index),
                    qPrintable(time),
                    step.timeEstimated ? " [time estimated]" : "",
                    qPrintable(step.key),
                    qPrintable(step.change),
                    qPrintable(step.outcome));
        for (const operators::PlannedWrite &write : step.writes)
            std::printf("    would %s\n", qPrintable(write.toString()));
        if (step.writes.isEmpty())
            std::puts("    no writes");
    }
    std::fflush(stdout);
}

// `reconscope reconcile --replay FILE... [-o json]`: the reconciler's dry run over a replay.
int runDryRunOverReplay(const operators::ReconcileCommandOptions &options)
{
    auto source = record::openRecordSource(options.replay);
    if (!source) {
        std::fprintf(stderr, "reconscope reconcile: %s\n", qPrintable(source.error().message));
        return 1;
    }
    for (const QString &warning : source.value()->warnings())
        std::fprintf(stderr, "reconscope reconcile: warning: %s\n", qPrintable(warning));
    controller::platform::TerminationSignals termination;
    if (!termination.install()) {
        std::fputs("reconscope reconcile: cannot install the signal handlers\n", stderr);
        return 1;
    }
    QObject::connect(&termination,
                     &controller::platform::TerminationSignals::received,
                     QCoreApplication::instance(),
                     [] { std::_Exit(130); });
    clabs::ReplayDryRun dryRun(std::move(source.value()));
    QObject::connect(
        &dryRun,
        &clabs::ReplayDryRun::stepPlanned,
        &dryRun,
        [json = options.json](const clabs::DryRunStep &step) { printStep(step, json); });
    QObject::connect(
        &dryRun, &clabs::ReplayDryRun::finished, &dryRun, [&dryRun](const QString &error) {
            if (!error.isEmpty()) {
                std::fprintf(stderr, "reconscope reconcile: %s\n", qPrintable(error));
                QCoreApplication::exit(1);
                return;
            }
            if (const auto end = dryRun.source().end(); !end.complete)
                std::fprintf(stderr,
                             "reconscope reconcile: the recording was %s\n",
                             qPrintable(end.describe()));
            QCoreApplication::exit(0);
        });
    dryRun.start();
    return QCoreApplication::exec();
}

} // namespace

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
    if (!options->replay.isEmpty())
        return runDryRunOverReplay(options.value());
    return operators::ReconcileCommand::run(options.value());
}

} // namespace reconscope::app
