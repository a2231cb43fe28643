#include "controller/apimachinery/resourceref.h"

#include <QUrl>

using namespace Qt::StringLiterals;

namespace reconscope::controller::apimachinery {

namespace {

QString encodePathSegment(const QString &segment)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(segment));
}

} // namespace

QString ResourceRef::collectionPath(const QString &namespace_) const
{
    QString path = group.isEmpty() ? u"/api/"_s + version : u"/apis/"_s + group + u'/' + version;
    if (namespaced && !namespace_.isEmpty())
        path += u"/namespaces/"_s + encodePathSegment(namespace_);
    return path + u'/' + plural;
}

QString ResourceRef::objectPath(const QString &namespace_,
                                const QString &name,
                                const QString &subresource) const
{
    QString path = collectionPath(namespace_) + u'/' + encodePathSegment(name);
    if (!subresource.isEmpty())
        path += u'/' + subresource;
    return path;
}

} // namespace reconscope::controller::apimachinery
