#include "controller/kube/eventdispatcher.h"

#include <QByteArray>
#include <QtGlobal>

namespace reconscope::controller::kube {

void preferQtEventDispatcher()
{
    if (!qEnvironmentVariableIsSet("QT_NO_GLIB"))
        qputenv("QT_NO_GLIB", QByteArrayLiteral("1"));
}

} // namespace reconscope::controller::kube
