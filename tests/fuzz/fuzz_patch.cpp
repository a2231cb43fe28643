// libFuzzer target: patch application as the embedded cluster performs it (controller/cluster):
// JSON merge patch (RFC 7386) or JSON patch (RFC 6902) on a stored CustomApp, then defaulting,
// structural-schema pruning and validation of the result, then storage.
//
// Input: the first byte picks the patch type and whether the status subresource is patched; the
// rest is the patch body. Each input meets the same stored CustomApp. Invariants: a
// refused patch changes nothing (same resourceVersion counter, same stored object, no event); an
// accepted one stores an object that still has its name and a resourceVersion.

#include "controller/cluster/cluster.h"
#include "fuzzsupport.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using json = nlohmann::json;

namespace {

const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };

json seedObject()
{
    return json::parse(R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",
        "metadata":{"name":"fuzz","labels":{"app":"fuzz"},"annotations":{"note":"seed"},
                    "finalizers":["example.com/keep"]},
        "spec":{"image":"nginx:1.27","replicas":2}})");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    reconscope::fuzz::ensureApplication();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const PatchType type = (data[0] & 1) ? PatchType::Json : PatchType::Merge;
    const bool status = (data[0] & 2) != 0;
    const QByteArray body(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));

    // A cluster is expensive to build: one serves every input until a patch is accepted (the
    // next input then starts from a fresh one, so each input sees the same stored object).
    static Cluster *cluster = nullptr; // left to the OS at exit, after Qt is gone
    static int events = 0;
    if (!cluster) {
        reconscope::fuzz::drainEvents();
        cluster = new Cluster;
        if (!cluster->create(apps, u"default"_s, seedObject()))
            std::abort();
        cluster->subscribe([](const ClusterEvent &) { ++events; });
    }
    events = 0;
    const qint64 revisionBefore = cluster->currentResourceVersion();
    const json before = *cluster->get(apps, u"default"_s, u"fuzz"_s);

    auto patched = cluster->patch(apps, u"default"_s, u"fuzz"_s, type, body, status);
    if (!patched) {
        if (patched.error().code < 400 || patched.error().code > 599
            || patched.error().message.isEmpty())
            std::abort();
        if (cluster->currentResourceVersion() != revisionBefore || events != 0)
            std::abort(); // a refused patch changed the revision or sent an event
        auto after = cluster->get(apps, u"default"_s, u"fuzz"_s);
        if (!after || *after != before)
            std::abort(); // a refused patch changed the stored object
    } else {
        auto after = cluster->get(apps, u"default"_s, u"fuzz"_s);
        if (!after || (*after)["metadata"]["name"] != "fuzz"
            || !(*after)["metadata"]["resourceVersion"].is_string())
            std::abort();
        if (cluster->currentResourceVersion() != revisionBefore)
            delete std::exchange(cluster, nullptr);
    }
    return 0;
}
