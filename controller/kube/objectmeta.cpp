#include "controller/kube/objectmeta.h"

#include "models/jsonscan.h"

namespace reconscope::controller::kube {

bool ObjectMeta::peek(QByteArrayView object, ObjectMeta *out)
{
    QByteArrayView metadata;
    const bool valid
        = models::jsonscan::forEachMember(object, [&](QByteArrayView key, QByteArrayView value) {
              if (key == "metadata")
                  metadata = value;
              return true;
          });
    if (!valid)
        return false;
    ObjectMeta meta;
    if (!metadata.isEmpty()) {
        const bool metaValid = models::jsonscan::forEachMember(
            metadata, [&](QByteArrayView key, QByteArrayView value) {
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
            });
        if (!metaValid)
            return false;
    }
    *out = std::move(meta);
    return true;
}

} // namespace reconscope::controller::kube
