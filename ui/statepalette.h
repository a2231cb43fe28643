#pragma once

#include "models/lifecyclestate.h"

#include <QColor>

namespace reconscope::ui {

// The colours of the lifecycle states, shared by the table's state chips and the state graph:
// a strong accent (chip fill, node border), a light fill (graph node) and the chip's text colour
// chosen for contrast with the accent.
struct StateColors
{
    QColor accent;
    QColor fill;
    QColor chipText;
};

StateColors stateColors(models::LifecycleState state);
// The highlight of a selected object's path and current node.
QColor selectionColor();
// Off-design transitions.
QColor offDesignColor();

} // namespace reconscope::ui
