#include "app/consolelogging.h"

#include "app/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>

#include <QDir>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace reconscope::app {

QString ConsoleLogging::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + u"/logs"_s;
}

ConsoleLogging::ConsoleLogging(spdlog::sink_ptr pane, const QString &directory)
    : m_pane(std::move(pane))
{
    if (m_pane)
        logging::addSink(m_pane);
    const QString dir = directory.isEmpty() ? defaultDirectory() : directory;
    if (!QDir().mkpath(dir)) {
        spdlog::warn("log file: cannot create {}", dir.toStdString());
        return;
    }
    const QString path = QDir(dir).filePath(u"reconscope.log"_s);
    try {
        auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
            path.toStdString(), 5 * 1024 * 1024, 3);
        // The log pane's line (models::LogRecord::line()), so that `grep -i Conflict` on the file
        // counts what the pane's Conflict button counts.
        file->set_formatter(std::make_unique<spdlog::pattern_formatter>(
            "%Y-%m-%dT%H:%M:%S.%eZ %l [%n] %v", spdlog::pattern_time_type::utc));
        m_file = file;
        logging::addSink(m_file);
        m_filePath = path;
    } catch (const spdlog::spdlog_ex &error) {
        spdlog::warn("log file: {}", error.what());
    }
}

ConsoleLogging::~ConsoleLogging()
{
    if (m_file) {
        m_file->flush();
        logging::removeSink(m_file);
    }
    if (m_pane)
        logging::removeSink(m_pane);
}

} // namespace reconscope::app
