#include "app/crashhandler.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstring>

namespace reconscope::app::crashhandler {

namespace {

constexpr std::array FatalSignals{ SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
constexpr int MaxFrames = 64;

// The handler runs on its own stack, so a stack overflow of the main thread (SIGSEGV on a full
// stack) is reported too; other threads have no alternate stack, and die of it unreported.
alignas(16) char alternateStack[64 * 1024];
volatile sig_atomic_t handling = 0;

void writeText(const char *text)
{
    std::size_t left = std::strlen(text);
    while (left > 0) {
        const ssize_t written = ::write(STDERR_FILENO, text, left);
        if (written <= 0)
            return;
        text += written;
        left -= std::size_t(written);
    }
}

// Decimal, without printf (not async-signal-safe).
void writeNumber(long value)
{
    char digits[24];
    char *end = digits + sizeof digits;
    char *at = end;
    *--at = '\0';
    const bool negative = value < 0;
    unsigned long magnitude
        = negative ? 0UL - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
    do {
        *--at = char('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0 && at > digits + 1);
    if (negative)
        *--at = '-';
    writeText(at);
}

const char *signalName(int number)
{
    switch (number) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    default:
        return "signal";
    }
}

void handleFatalSignal(int number, siginfo_t *info, void *)
{
    if (handling == 0) {
        handling = 1;
        writeText("\nreconscope: fatal signal ");
        writeNumber(number);
        writeText(" (");
        writeText(signalName(number));
        writeText(info && info->si_code == SI_USER ? ", sent with kill" : "");
        writeText("), reconscope " RECONSCOPE_VERSION ", pid ");
        writeNumber(long(::getpid()));
        writeText("\nbacktrace (addresses resolve with addr2line -e reconscope):\n");
        void *frames[MaxFrames];
        const int count = ::backtrace(frames, MaxFrames);
        ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
        writeText("end of crash report\n");
    }
    // Die of the same signal with its default action: the exit status and the core dump are the
    // ones the signal would have given without this handler.
    struct sigaction defaultAction
    { };
    defaultAction.sa_handler = SIG_DFL;
    ::sigemptyset(&defaultAction.sa_mask);
    ::sigaction(number, &defaultAction, nullptr);
    sigset_t unblock;
    ::sigemptyset(&unblock);
    ::sigaddset(&unblock, number);
    ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
    ::raise(number);
    // A fault raised by the instruction itself happens again on return, now with SIG_DFL.
}

} // namespace

void install()
{
    // backtrace() loads libgcc's unwinder on its first call, which allocates: do it now, not in
    // the handler.
    void *warmUp[2];
    (void)::backtrace(warmUp, 2);

    stack_t stack{};
    stack.ss_sp = alternateStack;
    stack.ss_size = sizeof alternateStack;
    ::sigaltstack(&stack, nullptr);

    struct sigaction action
    { };
    action.sa_sigaction = handleFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigemptyset(&action.sa_mask);
    for (const int number : FatalSignals) {
        // A handler installed before main() (AddressSanitizer's for SIGSEGV, SIGBUS and SIGFPE)
        // keeps its signal: its own report is the better one there.
        struct sigaction current
        { };
        if (::sigaction(number, nullptr, &current) == 0 && current.sa_handler != SIG_DFL)
            continue;
        ::sigaction(number, &action, nullptr);
    }
}

} // namespace reconscope::app::crashhandler
