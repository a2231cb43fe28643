#include "ui/statepalette.h"

namespace reconscope::ui {

using models::LifecycleState;

StateColors stateColors(LifecycleState state)
{
    switch (state) {
    case LifecycleState::Pending:
        return { QColor(0x54, 0x6e, 0x7a), QColor(0xec, 0xef, 0xf1), Qt::white };
    case LifecycleState::Reconciling:
        return { QColor(0x15, 0x65, 0xc0), QColor(0xe3, 0xf2, 0xfd), Qt::white };
    case LifecycleState::Ready:
        return { QColor(0x2e, 0x7d, 0x32), QColor(0xe8, 0xf5, 0xe9), Qt::white };
    case LifecycleState::Degraded:
        return { QColor(0xc6, 0x28, 0x28), QColor(0xff, 0xeb, 0xee), Qt::white };
    case LifecycleState::Terminating:
        return { QColor(0x6a, 0x1b, 0x9a), QColor(0xf3, 0xe5, 0xf5), Qt::white };
    case LifecycleState::Unknown:
        return { QColor(0xf9, 0xa8, 0x25), QColor(0xff, 0xfd, 0xe7), QColor(0x21, 0x21, 0x21) };
    case LifecycleState::NoLifecycle:
        break;
    }
    return { QColor(0xbd, 0xbd, 0xbd), QColor(0xfa, 0xfa, 0xfa), QColor(0x21, 0x21, 0x21) };
}

QColor selectionColor()
{
    return QColor(0xef, 0x6c, 0x00);
}

QColor offDesignColor()
{
    return QColor(0xd3, 0x2f, 0x2f);
}

} // namespace reconscope::ui
