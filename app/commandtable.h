#pragma once

// Every command of the `reconscope` binary, with the one line `reconscope --help` shows for it.
// main() dispatches through this table and the help text is built from it, so a command cannot be
// added without being listed.
#include <QString>

#include <span>

namespace reconscope::app {

struct Command
{
    const char *word;
    const char *summary;
    int (*run)(int, char **);
};

std::span<const Command> commandTable();

// "Commands:" and one line per command (the console first), for --help and usage errors.
QString commandListText();

} // namespace reconscope::app
