#pragma once

namespace reconscope::app {

// `reconscope reconcile --kubeconfig F [--context C] [-n NS] [--dry-run]
// [--metrics-bind-address ADDR] [--log-level LEVEL]`: the CustomApp reconciler, headless, until
// SIGINT/SIGTERM.
int runReconcile(int argc, char *argv[]);

} // namespace reconscope::app
