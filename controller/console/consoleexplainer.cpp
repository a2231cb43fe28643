#include "controller/console/consoleexplainer.h"

#include "controller/console/consolesession.h"
#include "controller/reconcile/controllerloop.h"
#include "controller/troubleshoot/explainreader.h"
#include "models/problems.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

ConsoleExplainer::ConsoleExplainer(ConsoleSession *session, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{ }

ConsoleExplainer::~ConsoleExplainer() = default;

void ConsoleExplainer::explain(const QString &key)
{
    const quint64 request = ++m_request;
    if (!m_session->client()) {
        emit failed(key, tr("not connected"));
        return;
    }
    // A reader per request, on the client of the moment (a reconnect replaces it); each goes
    // when its answer came.
    auto *reader = new troubleshoot::ExplainReader(m_session->client(), this);
    const QString namespace_ = key.contains(u'/') ? key.section(u'/', 0, 0) : QString();
    const QString name = key.section(u'/', -1);
    const QString resource = m_session->resource().qualifiedName();
    reader->explain(m_session->resource().ref(),
                    namespace_,
                    name,
                    m_session->mapping(),
                    m_clock(),
                    m_thresholds,
                    [this, reader, request, key, resource](
                        models::Result<troubleshoot::Explanation, apimachinery::ApiError> result) {
                        reader->deleteLater();
                        if (request != m_request)
                            return; // a newer request is on its way
                        if (!result) {
                            emit failed(key, result.error().toString());
                            return;
                        }
                        troubleshoot::Explanation explanation = std::move(result.value());
                        // The reconciler's verdict ranks last (Cause::Kind order): appended, the
                        // ranking holds.
                        const reconcile::ControllerLoop *loop = m_session->controllerLoop();
                        if (loop && resource == m_session->resource().qualifiedName()) {
                            const QString verdict
                                = reconcilerVerdict(loop->lastRecord(key), m_clock());
                            if (!verdict.isEmpty())
                                explanation.causes << troubleshoot::Cause{
                                    troubleshoot::Cause::Kind::ReconcilerVerdict, verdict, {}
                                };
                        }
                        emit explained(key, explanation);
                    });
}

QString reconcilerVerdict(const std::optional<reconcile::ReconcileRecord> &record,
                          const QDateTime &now)
{
    if (!record || record->result == reconcile::ReconcileRecord::Result::InProgress)
        return {};
    const QDateTime started = reconcile::toDateTime(record->startedAt);
    QString line = u"the embedded reconciler's last reconcile (%1 ago): %2"_s.arg(
        models::problemAge(started.secsTo(now)), reconcile::resultName(record->result));
    if (!record->error.isEmpty())
        line += u": "_s + record->error;
    if (!record->explanation.isEmpty())
        line += u" — "_s + record->explanation;
    return line;
}

} // namespace reconscope::controller::console
