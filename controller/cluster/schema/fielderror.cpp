#include "controller/cluster/schema/fielderror.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

QString formatFieldErrors(const QList<FieldError> &errors)
{
    return apimachinery::aggregateMessage(statusCausesOf(errors));
}

QList<apimachinery::StatusCause> statusCausesOf(const QList<FieldError> &errors)
{
    QList<apimachinery::StatusCause> causes;
    causes.reserve(errors.size());
    for (const FieldError &error : errors)
        causes.append({ error.reason, error.message, error.field });
    return causes;
}

apimachinery::ApiError invalidError(const QString &group,
                                    const QString &kind,
                                    const QString &name,
                                    const QList<FieldError> &errors)
{
    return apimachinery::ApiError::invalid(group, kind, name, statusCausesOf(errors));
}

} // namespace reconscope::controller::cluster
