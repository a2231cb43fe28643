#pragma once

// Readable QCOMPARE failures for the reconciler's value types.

#include "controller/reconcile/clock.h"
#include "controller/reconcile/controllerloop.h"
#include "controller/reconcile/workqueue.h"

#include <QtTest>

#include <optional>

namespace QTest {

template<>
inline char *toString(const reconscope::controller::reconcile::Duration &d)
{
    return qstrdup(reconscope::controller::reconcile::formatDuration(d).toUtf8().constData());
}

template<>
inline char *toString(const reconscope::controller::reconcile::TimePoint &t)
{
    using namespace reconscope::controller::reconcile;
    const QString text = toDateTime(t).toString(Qt::ISODateWithMs) + QLatin1String(" (+")
        + formatDuration(t - FakeClock::defaultStart()) + QLatin1Char(')');
    return qstrdup(text.toUtf8().constData());
}

template<>
inline char *toString(const std::optional<reconscope::controller::reconcile::TimePoint> &t)
{
    return t ? toString(*t) : qstrdup("(none)");
}

template<>
inline char *toString(const std::optional<QString> &s)
{
    return s ? toString(*s) : qstrdup("(none)");
}

} // namespace QTest

namespace reconscope::controller::reconcile {

inline char *toString(QueueEntry::State state)
{
    return qstrdup(stateName(state).toUtf8().constData());
}

inline char *toString(ReconcileRecord::Result result)
{
    return qstrdup(resultName(result).toUtf8().constData());
}

} // namespace reconscope::controller::reconcile
