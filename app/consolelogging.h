#pragma once

// The console's log destinations, added to the program's logger (app/logging.h) for as long as the
// returned object lives: the log pane's sink, and a rotating file in the user's data directory
// (QStandardPaths::AppDataLocation/logs/reconscope.log, 5 MB, 3 files kept).
#include <spdlog/common.h>

#include <QString>

#include <memory>

namespace reconscope::app {

class ConsoleLogging
{
public:
    // `directory` empty: AppDataLocation/logs.
    explicit ConsoleLogging(spdlog::sink_ptr pane, const QString &directory = {});
    ~ConsoleLogging();
    ConsoleLogging(const ConsoleLogging &) = delete;
    ConsoleLogging &operator=(const ConsoleLogging &) = delete;

    // The log file, empty when it could not be opened (the reason was logged).
    QString filePath() const { return m_filePath; }
    static QString defaultDirectory();

private:
    spdlog::sink_ptr m_pane;
    spdlog::sink_ptr m_file;
    QString m_filePath;
};

} // namespace reconscope::app
