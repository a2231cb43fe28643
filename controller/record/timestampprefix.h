#pragma once

#include <QByteArrayView>
#include <QDateTime>

#include <optional>

namespace reconscope::controller::record {

// The time prefix a capture's lines carry when piped through moreutils' `ts` (or a shell loop
// that dates each line), in the forms `ts` writes:
//   Syslog   "Dec 03 15:04:05" or "Dec 03 15:04:05.123456" (ts, ts "%b %d %H:%M:%.S"): local
//            time without a year;
//   Iso      "2026-12-03T15:04:05", "2026-12-03 15:04:05", with ".123", "Z" or "+01:00"
//            optional (ts "%Y-%m-%dT%H:%M:%.SZ", ts "%FT%T%z"): local time without a zone;
//   Epoch    "1764775465" or "1764775465.123456" (ts "%s", ts "%.s"), nine digits or more;
//   Elapsed  "00:00:05" or "00:00:05.123456" (ts -s, ts -s "%H:%M:%.S"): since the capture began.
// The prefix ends at the first space after it; a line whose time parses has its rest after that.
struct TimestampPrefix
{
    enum class Kind { Syslog, Iso, Epoch, Elapsed };
    Kind kind = Kind::Iso;
    qsizetype length = 0; // the prefix's bytes, the space after it included
    // Iso with a zone and Epoch: microseconds since the Unix epoch. Iso without a zone: local
    // wall time as microseconds since 1970-01-01T00:00 of the local calendar. Syslog: microseconds
    // since the start of January 1st of a year to be chosen (yearless). Elapsed: microseconds.
    qint64 micros = 0;
    int month = 0; // Syslog: 1..12
    int day = 0; // Syslog: 1..31
    bool local = false; // Iso without a zone, Syslog: a local time

    // The time for a line, in microseconds since the Unix epoch (not for Elapsed): local times
    // in the system's zone, Syslog in `year`.
    qint64 epochMicros(int year) const;
};

// The prefix at the start of `line`, of `kind` when given; nothing when it has none.
std::optional<TimestampPrefix>
parseTimestampPrefix(QByteArrayView line, std::optional<TimestampPrefix::Kind> kind = std::nullopt);

} // namespace reconscope::controller::record
