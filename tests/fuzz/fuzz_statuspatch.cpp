// libFuzzer target: status patches applied to the stored status alone (Cluster's
// patchStatusInPlace, which keeps the rest of the stored text as it is) against the general way
// (the whole object parsed, patched, pruned, defaulted, validated and serialized again).
//
// Input: the first byte picks the patch type (bit 0: JSON patch, else merge patch); the rest is
// the body of a PATCH of the status subresource. Two clusters with the same clock and the same
// stored CustomApp (with a status) get it, one with the write shortcuts on, the other off.
// Invariant: the same outcome — the same error (code and message), or the same committed bytes
// (the uid aside), warnings and resourceVersion counter.

#include "controller/cluster/cluster.h"
#include "fuzzsupport.h"

#include <nlohmann/json.hpp>

#include <QDateTime>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using json = nlohmann::json;

namespace {

const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "fuzz_statuspatch: %s\n", what);
    std::abort();
}

json seedObject()
{
    return json::parse(R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",
        "metadata":{"name":"fuzz","labels":{"app":"fuzz"},"annotations":{"note":"seed"}},
        "spec":{"image":"nginx:1.27","replicas":2}})");
}

json seedStatus()
{
    return json::parse(R"({"status":{"observedGeneration":1,"replicas":2,"readyReplicas":1,
        "conditions":[{"type":"Ready","status":"False","reason":"Starting","message":"one",
                       "lastTransitionTime":"2026-11-30T07:00:00Z"},
                      {"type":"Churn","status":"True","reason":"Churn","message":"churn-ts 1 seq 1",
                       "lastTransitionTime":"2026-11-30T07:00:00Z","observedGeneration":1}]}})");
}

struct Twin
{
    Cluster *cluster = nullptr;
    QByteArray uid;
};

void build(Twin &twin, bool shortcuts)
{
    twin.cluster = new Cluster;
    twin.cluster->setClock([] { return QDateTime(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC); });
    twin.cluster->setWriteShortcuts(shortcuts);
    auto created = twin.cluster->create(apps, u"default"_s, seedObject());
    if (!created)
        std::abort();
    twin.uid = QByteArray::fromStdString(created->object["metadata"]["uid"].get<std::string>());
    const QByteArray status = QByteArray::fromStdString(seedStatus().dump());
    if (!twin.cluster->patch(apps, u"default"_s, u"fuzz"_s, PatchType::Merge, status, true))
        std::abort();
}

QByteArray normalized(QByteArray text, const Twin &twin)
{
    return text.replace(twin.uid, "UID");
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
    const QByteArray body(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));

    // Built once and kept until a patch is accepted, as fuzz_patch does.
    static Twin twins[2]; // left to the OS at exit, after Qt is gone
    if (!twins[0].cluster) {
        reconscope::fuzz::drainEvents();
        build(twins[0], true);
        build(twins[1], false);
    }
    WriteOptions options;
    options.returnObject = false;
    auto a = twins[0].cluster->patch(apps, u"default"_s, u"fuzz"_s, type, body, true, options);
    auto b = twins[1].cluster->patch(apps, u"default"_s, u"fuzz"_s, type, body, true, options);
    if (bool(a) != bool(b))
        fail("one cluster accepts the patch, the other refuses it");
    if (twins[0].cluster->currentResourceVersion() != twins[1].cluster->currentResourceVersion())
        fail("the resourceVersion counters differ");
    if (!a) {
        if (a.error().code != b.error().code || a.error().message != b.error().message)
            fail("the errors differ");
        return 0;
    }
    if (normalized(a->objectJson, twins[0]) != normalized(b->objectJson, twins[1]))
        fail("the committed objects differ");
    if (a->warnings != b->warnings)
        fail("the warnings differ");
    if (!a->objectJson.isEmpty()) {
        for (Twin &twin : twins)
            delete std::exchange(twin.cluster, nullptr);
    }
    return 0;
}
