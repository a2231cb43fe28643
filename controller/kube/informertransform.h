#pragma once

#include "controller/kube/fastlist/compactjson.h"
#include "controller/kube/pagetransport.h"
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QByteArrayView>
#include <QMetaType>

#include <functional>
#include <memory>

namespace reconscope::controller::kube {

// One cached object: the summary the UI needs, and the raw JSON for whoever wants the full object
// (kept compressed or as it came, as the informer's transform chose: it is most of a big list's
// bytes and read only for detail views and reconciles).
struct InformerEntry
{
    models::ObjectSummary summary;
    CompactJson raw;

    // The object's JSON exactly as the server sent it.
    QByteArray rawJson() const { return raw.bytes(); }
    // The full object, parsed on demand (null when the bytes are not valid JSON).
    nlohmann::json json() const;
};

} // namespace reconscope::controller::kube

// Its members (strings, times, optionals of integers, lists, maps, a QByteArray and a shared_ptr)
// may be moved in memory as bytes: the hashes of entries then grow their spans with memcpy instead
// of moving each entry (for a large first list, much of the worker's time hashing it was entries
// moved from a span's storage to its grown storage). A member added to ObjectSummary or
// CompactJson that points into itself (std::string, std::map) would have to go before this.
Q_DECLARE_TYPEINFO(reconscope::controller::kube::InformerEntry, Q_RELOCATABLE_TYPE);

namespace reconscope::controller::kube {

// What an informer makes of an object's bytes before the object enters its store (client-go's
// TransformFunc, applied to bytes rather than to a decoded object): the one hook through which the
// informer, itself generic, uses the list fast path. make() is called at once on the reflector's
// pool threads (listed objects) and the informer's thread (watch events): it must be safe to call
// concurrently.
class InformerTransform
{
public:
    virtual ~InformerTransform() = default;
    // Fills `entry` (its summary, with the key, and its raw JSON) from the object's bytes; false
    // when the object cannot be cached (not an object, or no metadata.name).
    virtual bool make(QByteArrayView object, InformerEntry &entry) const = 0;
    // How the informer's lists travel (see PageTransport); null: as every other request, through
    // QNetworkAccessManager.
    virtual std::shared_ptr<const PageTransport> listTransport() const { return nullptr; }
};

// Makes the transform of one informer run, when its worker starts: what a transform learns from
// one resource's objects (a compression dictionary, shared strings) stays with that run.
using InformerTransformFactory
    = std::function<std::shared_ptr<const InformerTransform>(const models::LifecycleMapping &)>;

// The summary and the bytes as they came: no compression or interning paid for on each event, at
// the cost of the raw bytes in memory. For stores of a few hundred objects read often whole
// (a reconciler's Deployments, Secrets and Pods).
InformerTransformFactory plainTransform();
// The summary read with its shared strings interned in a pool of the run, the bytes compressed
// with a dictionary made of the run's first object, the lists read on a connection of their own
// (StreamedGet, half the CPU of QNetworkAccessManager's): the fast path, kube/fastlist/. For large
// lists kept long and read whole rarely (the console's table). The default of InformerStore.
InformerTransformFactory compactTransform();
// The summary alone, interned as compactTransform's, with no bytes kept (InformerEntry::raw empty)
// and the lists on the same fast path: for stores that only count and judge objects (the console's
// overview of every custom resource), never show their YAML.
InformerTransformFactory summaryTransform();

} // namespace reconscope::controller::kube
