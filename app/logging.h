#pragma once

// Logging set-up shared by every command of the `reconscope` binary: main() calls configure()
// once, before the command runs, so `--log-level LEVEL` works the same on all of them (and on
// commands added later) without each command parsing it.
//
// Everything goes through spdlog's default logger, whose one sink is a fan-out (dist_sink): stderr
// always (never stdout, which carries `watch -o json` and similar output); more destinations - the
// console's log pane, a rotating file - are added with addSink() and see the same messages.
#include <spdlog/common.h>

#include <QString>

#include <optional>

namespace reconscope::app::logging {

// trace, debug, info, warn (or warning), error, critical, off; nullopt for anything else.
std::optional<spdlog::level::level_enum> parseLevel(const QString &word);
QString levelWords(); // "trace, debug, info, warn, error, critical, off"

// Installs the default logger (once), then sets the level: info, or SPDLOG_LEVEL from the
// environment (spdlog's syntax: "debug", or "warn,reconscope=trace"), or the `--log-level` option,
// which wins over the variable. The option (`--log-level LEVEL` or `--log-level=LEVEL`, anywhere
// on the command line) is removed from argc/argv, so commands never see it. Returns an error
// message when the option's value is missing or not a level, else an empty string.
QString configure(int &argc, char **argv);

// The level in force (for tests and for sinks that want to show it).
spdlog::level::level_enum level();

// More destinations for every message (thread-safe; they get the logger's formatted output only
// when their own level lets it through). A sink's level defaults to trace: the logger's level
// decides.
void addSink(spdlog::sink_ptr sink);
void removeSink(const spdlog::sink_ptr &sink);

} // namespace reconscope::app::logging
