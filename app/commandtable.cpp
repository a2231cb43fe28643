#include "app/commandtable.h"
#include "app/commands.h"

using namespace Qt::StringLiterals;

namespace reconscope::app {

std::span<const Command> commandTable()
{
    // One command a line.
    // clang-format off
    static constexpr Command commands[] = {
        { "serve", "the embedded cluster alone, headless, with a kubeconfig for kubectl", runServe },
        { "watch", "print lifecycle transitions of a resource's objects as they happen", runWatch },
        { "record", "record resources' objects and watch events into a file, for replay", runRecord },
        { "replay", "play a recording (or kubectl captures) back as watch printed it", runReplay },
        { "play", "play a recording into a cluster: its objects made and changed as recorded", runPlay },
        { "explain", "why is it not Ready? an object's causes, ranked, with their evidence", runExplain },
        { "fields", "who owns what: an object's fields with their managers (managedFields)", runFields },
        { "reconcile", "run the CustomApp reconciler against a cluster (dry run, pause, step)", runReconcile },
        { "conflict-lab", "GitOps vs reconciler under three API designs, as figures", runConflictLab },
        { "lint-crd", "check a CRD's API boundary (spec/status, validation) offline or live", runLintCrd },
    };
    // clang-format on
    return commands;
}

QString commandListText()
{
    QString text
        = u"Commands:\n  %1 the console (demo mode on the embedded cluster, or --kubeconfig)\n"_s
              .arg(u"(none)"_s, -14);
    for (const Command &command : commandTable())
        text += u"  %1 %2\n"_s.arg(QString::fromLatin1(command.word), -14)
                    .arg(QString::fromLatin1(command.summary));
    text += u"Each command answers --help.\n"_s;
    return text;
}

} // namespace reconscope::app
