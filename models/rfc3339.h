#pragma once

#include <QDateTime>
#include <QString>
#include <QStringView>

#include <optional>

namespace reconscope::models {

// Kubernetes metav1.Time on the wire: RFC 3339, UTC, whole seconds ("2024-01-12T17:47:04Z").
QString formatRfc3339(const QDateTime &time);

// Parses an RFC 3339 date-time ("2024-01-12T17:47:04Z", "...04.930056634Z", "...04+02:00";
// 't'/'z' accepted in lower case). The result is in UTC and keeps milliseconds; nothing when the
// text is not RFC 3339.
std::optional<QDateTime> parseRfc3339(QStringView text);

// The same time truncated to whole seconds, in UTC (what metav1.Time keeps).
QDateTime toWholeSecondsUtc(const QDateTime &time);

} // namespace reconscope::models
