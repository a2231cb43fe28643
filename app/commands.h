#pragma once

// One function per command of the `reconscope` binary (shared/design.md). Each creates its own
// application object; `arguments` are those after the command word.
#include <QStringList>

namespace reconscope::app {

int runServe(int argc, char *argv[]);
int runWatch(int argc, char *argv[]);
int runRecord(int argc, char *argv[]);
int runReplay(int argc, char *argv[]);
int runPlay(int argc, char *argv[]);
int runExplain(int argc, char *argv[]);
int runFields(int argc, char *argv[]);
int runConflictLab(int argc, char *argv[]);
int runLintCrd(int argc, char *argv[]);
// `reconscope reconcile --kubeconfig F [--context C] [-n NS] [--dry-run]
// [--metrics-bind-address ADDR] [--log-level LEVEL]`: the CustomApp reconciler, headless, until
// SIGINT/SIGTERM.
int runReconcile(int argc, char *argv[]);
// The console (no command word): the embedded cluster in demo mode, or --kubeconfig F [--context
// C].
int runConsole(int argc, char *argv[]);

void setApplicationInfo();
QStringList argumentsAfterCommand(int argc, char *argv[]);

} // namespace reconscope::app
