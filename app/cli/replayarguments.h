#pragma once

#include <QString>

#include <optional>

namespace reconscope::app {

// The pace of `replay` and `play` (--speed): a positive factor of the recorded pace ("2", "0.25",
// "64x"), or "max" (0: no waiting); nothing for anything else.
std::optional<double> parseReplaySpeed(QString text);

} // namespace reconscope::app
