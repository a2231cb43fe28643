#include "app/cli/replayarguments.h"

using namespace Qt::StringLiterals;

namespace reconscope::app {

std::optional<double> parseReplaySpeed(QString text)
{
    if (text == u"max"_s)
        return 0.0;
    if (text.endsWith(u'x'))
        text.chop(1);
    bool ok = false;
    const double speed = text.toDouble(&ok);
    return ok && speed > 0 ? std::optional(speed) : std::nullopt;
}

} // namespace reconscope::app
