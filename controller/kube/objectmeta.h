#pragma once

#include "models/jsonscan.h"

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

    bool operator==(const ObjectMeta &other) const = default;

    // "ns/name" or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
    QString key() const { return namespace_.isEmpty() ? name : namespace_ + u'/' + name; }

    // Reads .metadata of a JSON object; false when `object` is not a valid JSON object.
    static bool peek(QByteArrayView object, ObjectMeta *out);
    // The same for the object at `scanner`, nested `depth` deep in what the scanner reads (0: it
    // is the whole text), validated as Scanner::value() does at that depth; the scanner is then
    // past it. For readers of larger documents (a watch event) that meet the object once.
    static bool read(models::jsonscan::Scanner &scanner, int depth, ObjectMeta *out);
};

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(reconscope::controller::kube::ObjectMeta)
