#include "controller/cluster/schema/fielderror.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

QString formatFieldErrors(const QList<FieldError> &errors)
{
    QStringList parts;
    for (const FieldError &error : errors)
        parts.append(error.field.isEmpty() ? error.message : error.field + u": "_s + error.message);
    if (parts.size() == 1)
        return parts.first();
    if (parts.isEmpty())
        return {};
    return u'[' + parts.join(u", "_s) + u']';
}

} // namespace reconscope::controller::cluster
