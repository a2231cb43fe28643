#pragma once

// Readable QCOMPARE failures for the reconciler's value types.

#include "controller/reconcile/clock.h"
#include "controller/reconcile/controllerloop.h"
#include "controller/reconcile/workqueue.h"

#include <QRegularExpression>
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

// Every sample line of the text format: name{labels} value.
inline bool isValidPrometheusText(const QByteArray &text, QString *bad)
{
    using namespace Qt::StringLiterals;
    static const QRegularExpression sample(
        uR"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\\\|\\"|\\n)*",?)*\})? (\+Inf|-Inf|NaN|-?[0-9.eE+-]+)$)"_s);
    static const QRegularExpression comment(
        uR"(^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram))$)"_s);
    if (!text.endsWith('\n')) {
        *bad = u"(no trailing newline)"_s;
        return false;
    }
    for (const QByteArray &line : text.chopped(1).split('\n')) {
        const QString l = QString::fromUtf8(line);
        if (!sample.match(l).hasMatch() && !comment.match(l).hasMatch()) {
            *bad = l;
            return false;
        }
    }
    return true;
}

} // namespace reconscope::controller::reconcile
