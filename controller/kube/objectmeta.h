#pragma once

#include <QByteArrayView>
#include <QMetaType>
#include <QString>

#include <cstdint>

namespace reconscope::controller::kube {

// The few metadata fields the client needs to key, order and age objects, read from an object's
// raw JSON without building a tree.
struct ObjectMeta
{
    QString name;
    QString namespace_;
    QString uid;
    QString resourceVersion;
    std::int64_t generation = 0;
    bool deleting = false; // deletionTimestamp is set

    // "ns/name" or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
    QString key() const { return namespace_.isEmpty() ? name : namespace_ + u'/' + name; }

    // Reads .metadata of a JSON object; false when `object` is not a valid JSON object.
    static bool peek(QByteArrayView object, ObjectMeta *out);
};

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(reconscope::controller::kube::ObjectMeta)
