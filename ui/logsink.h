#pragma once

#include "models/logmodel.h"

#include <spdlog/common.h>

#include <QObject>
#include <QPointer>

#include <memory>

namespace reconscope::ui {

// Feeds spdlog's messages into a LogModel. sink() is an spdlog sink that any thread may log
// through; it only queues the record under a mutex and, when the queue was empty, posts one
// delivery to this object's thread, which appends everything queued by then as one batch (so a
// burst of messages is one model insertion, never a row per message). The sink may outlive this
// object (spdlog holds it): records logged afterwards are dropped.
class LogSink final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogSink)

public:
    explicit LogSink(models::LogModel *model, QObject *parent = nullptr);
    ~LogSink() override;

    spdlog::sink_ptr sink() const { return m_sink; }
    models::LogModel *model() const { return m_model; }
    // Delivers what is queued now (tests; normally the posted delivery does it).
    void flush();

    struct Queue;

private:
    std::shared_ptr<Queue> m_queue;
    spdlog::sink_ptr m_sink;
    QPointer<models::LogModel> m_model;
};

} // namespace reconscope::ui
