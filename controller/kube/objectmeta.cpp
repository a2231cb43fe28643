#include "controller/kube/objectmeta.h"

#include "models/jsonscan.h"

namespace reconscope::controller::kube {

bool ObjectMeta::peek(QByteArrayView object, ObjectMeta *out)
{
    models::jsonscan::Scanner scanner(object);
    ObjectMeta meta;
    if (!read(scanner, 0, &meta))
        return false;
    scanner.skipWhitespace();
    if (!scanner.atEnd())
        return false;
    *out = std::move(meta);
    return true;
}

bool ObjectMeta::read(models::jsonscan::Scanner &scanner, int depth, ObjectMeta *out)
{
    using models::jsonscan::forEachMemberAt;
    // One pass: the metadata's members are read while the object is validated, not scanned again
    // (it is most of an object's bytes: annotations, managedFields).
    ObjectMeta meta;
    const auto metadataMember = [&](QByteArrayView key) {
        QByteArrayView value;
        if (!scanner.value(&value, depth + 2))
            return false;
        if (key == "name")
            meta.name = models::jsonscan::toString(value).value_or(QString());
        else if (key == "namespace")
            meta.namespace_ = models::jsonscan::toString(value).value_or(QString());
        else if (key == "uid")
            meta.uid = models::jsonscan::toString(value).value_or(QString());
        else if (key == "resourceVersion")
            meta.resourceVersion = models::jsonscan::toString(value).value_or(QString());
        else if (key == "generation")
            meta.generation = models::jsonscan::toInt64(value).value_or(0);
        else if (key == "deletionTimestamp")
            meta.deleting = value != "null";
        return true;
    };
    const bool valid = forEachMemberAt(scanner, [&](QByteArrayView key) {
        if (key == "metadata") {
            meta = ObjectMeta(); // the last metadata member counts, as a decoder keeps it
            return forEachMemberAt(scanner, metadataMember);
        }
        QByteArrayView value;
        return scanner.value(&value, depth + 1);
    });
    if (!valid)
        return false;
    *out = std::move(meta);
    return true;
}

} // namespace reconscope::controller::kube
