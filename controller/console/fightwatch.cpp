#include "controller/console/fightwatch.h"

#include "controller/console/consolesession.h"

namespace reconscope::controller::console {

FightWatch::FightWatch(ConsoleSession *session, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    connect(session, &ConsoleSession::objectsChanged, this, &FightWatch::handleObjectsChanged);
    connect(session, &ConsoleSession::trackerReset, this, [this] {
        m_detector.clear();
        emit reset();
    });
}

void FightWatch::setSettings(const fieldowner::FightSettings &settings)
{
    m_detector = fieldowner::FightDetector(settings);
    emit reset();
}

void FightWatch::handleObjectsChanged(const QStringList &upserted, const QStringList &removed)
{
    const kube::InformerStore *informer = m_session->informer();
    if (!informer)
        return;
    const QDateTime now = m_clock();
    QList<fieldowner::Fight> started;
    for (const QString &key : upserted) {
        if (const kube::InformerEntry *entry = informer->entry(key))
            started += m_detector.observe(key, entry->summary.managedFields, now);
    }
    for (const QString &key : removed)
        m_detector.remove(key);
    if (!started.isEmpty())
        emit fightsStarted(started);
}

QList<fieldowner::Fight> FightWatch::current() const
{
    return m_detector.current(m_clock());
}

QList<fieldowner::Fight> FightWatch::currentFor(const QString &key) const
{
    return m_detector.currentFor(key, m_clock());
}

} // namespace reconscope::controller::console
