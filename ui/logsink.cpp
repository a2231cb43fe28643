#include "ui/logsink.h"

#include <spdlog/details/log_msg.h>
#include <spdlog/sinks/base_sink.h>

#include <QDateTime>
#include <QMetaObject>

#include <chrono>
#include <mutex>
#include <utility>

namespace reconscope::ui {

struct LogSink::Queue
{
    std::mutex mutex;
    QList<models::LogRecord> pending;
    LogSink *target = nullptr; // null once the LogSink is gone
};

namespace {

models::LogRecord::Level levelOf(spdlog::level::level_enum level)
{
    switch (level) {
    case spdlog::level::trace:
        return models::LogRecord::Trace;
    case spdlog::level::debug:
        return models::LogRecord::Debug;
    case spdlog::level::info:
        return models::LogRecord::Info;
    case spdlog::level::warn:
        return models::LogRecord::Warn;
    case spdlog::level::err:
        return models::LogRecord::Error;
    default:
        return models::LogRecord::Critical;
    }
}

class ModelSink final : public spdlog::sinks::base_sink<std::mutex>
{
public:
    explicit ModelSink(std::shared_ptr<LogSink::Queue> queue)
        : m_queue(std::move(queue))
    { }

protected:
    void sink_it_(const spdlog::details::log_msg &msg) override
    {
        models::LogRecord record;
        record.level = levelOf(msg.level);
        const auto ms
            = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch())
                  .count();
        record.time = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
        record.logger
            = QString::fromUtf8(msg.logger_name.data(), qsizetype(msg.logger_name.size()));
        record.text = QString::fromUtf8(msg.payload.data(), qsizetype(msg.payload.size()));

        std::lock_guard lock(m_queue->mutex);
        if (!m_queue->target)
            return;
        const bool first = m_queue->pending.isEmpty();
        m_queue->pending.append(std::move(record));
        if (first) {
            // Posted while the target cannot be destroyed (its destructor takes this mutex).
            QMetaObject::invokeMethod(m_queue->target, &LogSink::flush, Qt::QueuedConnection);
        }
    }
    void flush_() override { }

private:
    std::shared_ptr<LogSink::Queue> m_queue;
};

} // namespace

LogSink::LogSink(models::LogModel *model, QObject *parent)
    : QObject(parent)
    , m_queue(std::make_shared<Queue>())
    , m_model(model)
{
    m_queue->target = this;
    m_sink = std::make_shared<ModelSink>(m_queue);
}

LogSink::~LogSink()
{
    std::lock_guard lock(m_queue->mutex);
    m_queue->target = nullptr;
    m_queue->pending.clear();
}

void LogSink::flush()
{
    QList<models::LogRecord> batch;
    {
        std::lock_guard lock(m_queue->mutex);
        batch.swap(m_queue->pending);
    }
    if (m_model)
        m_model->append(batch);
}

} // namespace reconscope::ui
