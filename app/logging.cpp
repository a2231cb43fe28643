#include "app/logging.h"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <memory>
#include <mutex>

using namespace Qt::StringLiterals;

namespace reconscope::app::logging {

namespace {

constexpr auto Pattern = "%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v";

std::shared_ptr<spdlog::sinks::dist_sink_mt> fanOut()
{
    static std::once_flag once;
    static std::shared_ptr<spdlog::sinks::dist_sink_mt> sinks;
    std::call_once(once, [] {
        sinks = std::make_shared<spdlog::sinks::dist_sink_mt>();
        sinks->add_sink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
        auto logger = std::make_shared<spdlog::logger>("reconscope", sinks);
        logger->set_pattern(Pattern, spdlog::pattern_time_type::utc);
        spdlog::set_default_logger(logger);
    });
    return sinks;
}

// Removes argv[index] (and `count` - 1 following) from the argument vector.
void removeArguments(int &argc, char **argv, int index, int count)
{
    for (int i = index; i + count <= argc; ++i)
        argv[i] = argv[i + count];
    argc -= count;
}

} // namespace

std::optional<spdlog::level::level_enum> parseLevel(const QString &word)
{
    using namespace spdlog::level;
    const QString w = word.trimmed().toLower();
    if (w == u"trace")
        return trace;
    if (w == u"debug")
        return debug;
    if (w == u"info")
        return info;
    if (w == u"warn" || w == u"warning")
        return warn;
    if (w == u"error")
        return err;
    if (w == u"critical")
        return critical;
    if (w == u"off")
        return off;
    return std::nullopt;
}

QString levelWords()
{
    return u"trace, debug, info, warn, error, critical, off"_s;
}

QString configure(int &argc, char **argv)
{
    fanOut();
    spdlog::set_level(spdlog::level::info);
    // spdlog's own variable first (per-logger levels included); it ignores words it does not know.
    spdlog::cfg::load_env_levels();

    std::optional<QString> word;
    for (int i = 1; i < argc;) {
        const char *arg = argv[i];
        if (std::strcmp(arg, "--") == 0)
            break;
        if (std::strcmp(arg, "--log-level") == 0) {
            if (i + 1 >= argc)
                return u"--log-level needs a value (%1)"_s.arg(levelWords());
            word = QString::fromLocal8Bit(argv[i + 1]);
            removeArguments(argc, argv, i, 2);
            continue;
        }
        if (std::strncmp(arg, "--log-level=", 12) == 0) {
            word = QString::fromLocal8Bit(arg + 12);
            removeArguments(argc, argv, i, 1);
            continue;
        }
        ++i;
    }
    argv[argc] = nullptr;
    if (word) {
        const auto parsed = parseLevel(*word);
        if (!parsed)
            return u"unknown log level \"%1\" (want %2)"_s.arg(*word, levelWords());
        spdlog::set_level(*parsed);
    }
    return {};
}

spdlog::level::level_enum level()
{
    fanOut();
    return spdlog::default_logger()->level();
}

void addSink(spdlog::sink_ptr sink)
{
    fanOut()->add_sink(std::move(sink));
}

void removeSink(const spdlog::sink_ptr &sink)
{
    fanOut()->remove_sink(sink);
}

} // namespace reconscope::app::logging
