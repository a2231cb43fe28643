#include "clock.h"

#include <QTimer>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace reconscope::controller::reconcile {

QDateTime toDateTime(TimePoint t)
{
    const auto ms = std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count();
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

namespace {

// "1.5" from 1500 with scale 1000: the integer part and the trimmed fraction.
QString fixedPoint(std::int64_t value, std::int64_t scale)
{
    QString text = QString::number(value / scale);
    std::int64_t fraction = value % scale;
    if (fraction == 0)
        return text;
    int digits = 0;
    for (std::int64_t s = scale; s > 1; s /= 10)
        ++digits;
    QString frac = QString::number(fraction).rightJustified(digits, u'0');
    while (frac.endsWith(u'0'))
        frac.chop(1);
    return text + u'.' + frac;
}

} // namespace

QString formatDuration(Duration d)
{
    std::int64_t ns = d.count();
    if (ns == 0)
        return u"0s"_s;
    QString sign;
    if (ns < 0) {
        if (ns == std::numeric_limits<std::int64_t>::min())
            ns += 1;
        ns = -ns;
        sign = u"-"_s;
    }
    if (ns < 1000)
        return sign + QString::number(ns) + u"ns"_s;
    if (ns < 1000'000)
        return sign + fixedPoint(ns, 1000) + u"µs"_s;
    if (ns < 1000'000'000)
        return sign + fixedPoint(ns, 1000'000) + u"ms"_s;
    const std::int64_t hours = ns / 3600'000'000'000;
    const std::int64_t minutes = ns / 60'000'000'000 % 60;
    const std::int64_t secondsNs = ns % 60'000'000'000;
    QString text = sign;
    if (hours > 0)
        text += QString::number(hours) + u'h';
    if (hours > 0 || minutes > 0)
        text += QString::number(minutes) + u'm';
    return text + fixedPoint(secondsNs, 1000'000'000) + u's';
}

RealClock::RealClock()
    : m_anchor(std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()))
    , m_context(std::make_unique<QObject>())
{
    m_elapsed.start();
}

RealClock::~RealClock()
{
    qDeleteAll(m_timers);
}

TimePoint RealClock::now() const
{
    return m_anchor + Duration(m_elapsed.nsecsElapsed());
}

Clock::TimerId RealClock::callAfter(Duration delay, std::function<void()> fn)
{
    const TimerId id = m_nextId++;
    if (delay <= Duration::zero()) {
        m_posted.insert(id, std::move(fn));
        QMetaObject::invokeMethod(
            m_context.get(),
            [this, id] {
                const auto it = m_posted.find(id);
                if (it == m_posted.end())
                    return; // cancelled
                const std::function<void()> posted = std::move(it.value());
                m_posted.erase(it);
                posted();
            },
            Qt::QueuedConnection);
        return id;
    }
    // Round up so that a timer never fires before its deadline; QTimer takes an int of ms.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(delay, Duration::zero()));
    const auto interval = std::min<std::int64_t>(ms.count(), std::numeric_limits<int>::max());
    auto *timer = new QTimer;
    timer->setSingleShot(true);
    timer->setTimerType(Qt::PreciseTimer);
    timer->setInterval(int(interval));
    QObject::connect(timer, &QTimer::timeout, timer, [this, id, timer, fn = std::move(fn)] {
        m_timers.remove(id);
        timer->deleteLater();
        fn();
    });
    m_timers.insert(id, timer);
    timer->start();
    return id;
}

void RealClock::cancel(TimerId id)
{
    m_posted.remove(id);
    if (QTimer *timer = m_timers.take(id)) {
        timer->stop();
        timer->deleteLater();
    }
}

FakeClock::FakeClock(TimePoint start)
    : m_now(start)
{ }

TimePoint FakeClock::defaultStart()
{
    using namespace std::chrono;
    return TimePoint(sys_days(year(2026) / January / 1));
}

Clock::TimerId FakeClock::callAfter(Duration delay, std::function<void()> fn)
{
    const TimerId id = m_nextId++;
    const TimePoint at = m_now + std::max(delay, Duration::zero());
    m_timers.emplace(Due{ at, id }, std::move(fn));
    m_deadlines.insert(id, at);
    return id;
}

void FakeClock::cancel(TimerId id)
{
    const auto it = m_deadlines.constFind(id);
    if (it == m_deadlines.constEnd())
        return;
    m_timers.erase(Due{ it.value(), id });
    m_deadlines.erase(it);
}

int FakeClock::step(Duration d)
{
    const TimePoint target = m_now + std::max(d, Duration::zero());
    int fired = 0;
    while (!m_timers.empty() && m_timers.begin()->first.at <= target) {
        auto node = m_timers.extract(m_timers.begin());
        m_deadlines.remove(node.key().id);
        m_now = node.key().at;
        ++fired;
        node.mapped()();
    }
    m_now = target;
    return fired;
}

int FakeClock::stepToNextTimer()
{
    if (m_timers.empty())
        return 0;
    return step(m_timers.begin()->first.at - m_now);
}

TimePoint FakeClock::nextDeadline() const
{
    return m_timers.empty() ? m_now : m_timers.begin()->first.at;
}

} // namespace reconscope::controller::reconcile
