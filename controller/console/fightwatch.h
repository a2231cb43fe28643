#pragma once

#include "controller/fieldowner/fightdetector.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include <functional>

namespace reconscope::controller::console {

class ConsoleSession;

// Field-manager fights among the objects the console watches: the session's object changes go
// through a FightDetector (reading the managedFields the summaries keep, never whole objects).
// Lives on the session's thread; the clock is injectable for tests.
class FightWatch final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FightWatch)

public:
    explicit FightWatch(ConsoleSession *session, QObject *parent = nullptr);

    void setSettings(const fieldowner::FightSettings &settings);
    const fieldowner::FightSettings &settings() const { return m_detector.settings(); }
    void setClock(std::function<QDateTime()> clock) { m_clock = std::move(clock); }

    // The fights going on now, worst first.
    QList<fieldowner::Fight> current() const;
    // The object's fights going on now.
    QList<fieldowner::Fight> currentFor(const QString &key) const;

signals:
    // Fights that started with the latest changes (each reported once, until it stops).
    void fightsStarted(const QList<reconscope::controller::fieldowner::Fight> &fights);
    // The detector started over (another resource, another cluster).
    void reset();

private:
    void handleObjectsChanged(const QStringList &upserted, const QStringList &removed);

    ConsoleSession *m_session;
    fieldowner::FightDetector m_detector;
    std::function<QDateTime()> m_clock;
};

} // namespace reconscope::controller::console
