#pragma once

// The crash report: on SIGSEGV, SIGABRT, SIGBUS, SIGFPE or SIGILL the program
// writes to stderr which signal ended it, the version and a backtrace of the thread that received
// it, then dies of the same signal with its default action (exit status and core as without the
// handler). Nothing else is printed: no environment, no command line, no memory contents, so no
// token, key, exec credential or Authorization header can reach a crash report. Everything the
// signal handler uses is async-signal-safe and prepared in install().
namespace reconscope::app::crashhandler {

// Installs the handler for the whole process (every thread). Call once, early in main(). Signals
// that already have a handler (a sanitizer's) are left to it.
void install();

} // namespace reconscope::app::crashhandler
