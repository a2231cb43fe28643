// libFuzzer target: status patches applied to the stored status alone (Cluster's
// patchStatusInPlace, which keeps the rest of the stored text as it is and retimes the writer's
// managedFields entry when it alone owns what changed) against the general way (the whole object
// parsed, patched, pruned, defaulted, validated, its managedFields computed by the field manager,
// and serialized again).
//
// Input: the first byte picks the patch type (bit 0: JSON patch, else merge patch), its writer
// (bit 1: "reconscope-churn", else "status-writer", who wrote the seeded status), whether the
// clock moves on a second before it (bit 2), and the seeded object (bits 3-4: the status by
// status-writer alone; its Churn condition added by reconscope-churn; also .status.replicas
// applied by "applier" through server-side apply; also a label written by "labeler"); the rest
// is the body of a PATCH of the status subresource. Two clusters with the same clock and the
// same stored CustomApp get it, one with the write shortcuts on, the other off. Invariant: the
// same outcome — the same error (code and message), or the same committed bytes (the uid aside,
// managedFields and their times included), warnings and resourceVersion counter.

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

const char readyCondition[] = R"({"type":"Ready","status":"False","reason":"Starting",
    "message":"one","lastTransitionTime":"2026-11-30T07:00:00Z"})";
const char churnCondition[] = R"({"type":"Churn","status":"True","reason":"Churn",
    "message":"churn-ts 1 seq 1","lastTransitionTime":"2026-11-30T07:00:00Z",
    "observedGeneration":1})";

json seedStatus(bool withChurn)
{
    json conditions = json::array({ json::parse(readyCondition) });
    if (withChurn)
        conditions.push_back(json::parse(churnCondition));
    return { { "status",
               { { "observedGeneration", 1 },
                 { "replicas", 2 },
                 { "readyReplicas", 1 },
                 { "conditions", std::move(conditions) } } } };
}

// Seconds after 2026-11-30T09:00:00Z both twins' clocks read.
qint64 clockSeconds = 0;

enum Seed { StatusWriter, ChurnCondition, Applier, Labeler };

struct Twin
{
    Cluster *cluster = nullptr;
    QByteArray uid;
    int seed = -1;
};

WriteOptions writtenBy(const char *manager)
{
    WriteOptions options;
    options.fieldManager = QString::fromLatin1(manager);
    return options;
}

void seedWrite(Twin &twin, PatchType type, const json &body, bool status, const char *manager)
{
    ++clockSeconds;
    const QByteArray text = QByteArray::fromStdString(body.dump());
    if (!twin.cluster->patch(apps, u"default"_s, u"fuzz"_s, type, text, status, writtenBy(manager)))
        std::abort();
}

void build(Twin &twin, bool shortcuts, int seed)
{
    twin.cluster = new Cluster;
    twin.cluster->setClock(
        [] { return QDateTime(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC).addSecs(clockSeconds); });
    twin.cluster->setWriteShortcuts(shortcuts);
    twin.seed = seed;
    auto created = twin.cluster->create(apps, u"default"_s, seedObject());
    if (!created)
        std::abort();
    twin.uid = QByteArray::fromStdString(created->object["metadata"]["uid"].get<std::string>());
    seedWrite(twin, PatchType::Merge, seedStatus(seed == StatusWriter), true, "status-writer");
    if (seed >= ChurnCondition)
        seedWrite(twin,
                  PatchType::Json,
                  json::array({ { { "op", "add" },
                                  { "path", "/status/conditions/-" },
                                  { "value", json::parse(churnCondition) } } }),
                  true,
                  "reconscope-churn");
    if (seed >= Applier)
        seedWrite(twin,
                  PatchType::Apply,
                  { { "apiVersion", "infrastructure.internal.net/v1" },
                    { "kind", "CustomApp" },
                    { "metadata", { { "name", "fuzz" } } },
                    { "status", { { "replicas", 2 } } } },
                  true,
                  "applier");
    if (seed >= Labeler)
        seedWrite(twin,
                  PatchType::Merge,
                  { { "metadata", { { "labels", { { "team", "fuzz" } } } } } },
                  false,
                  "labeler");
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
    const char *writer = (data[0] & 2) ? "reconscope-churn" : "status-writer";
    const int seed = (data[0] >> 3) & 3;
    const QByteArray body(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));

    // Built for the input's seed and kept until a patch is accepted, as fuzz_patch does.
    static Twin twins[2]; // left to the OS at exit, after Qt is gone
    if (twins[0].cluster && twins[0].seed != seed) {
        for (Twin &twin : twins)
            delete std::exchange(twin.cluster, nullptr);
    }
    if (!twins[0].cluster) {
        reconscope::fuzz::drainEvents();
        const qint64 start = clockSeconds; // both twins seeded at the same times
        build(twins[0], true, seed);
        clockSeconds = start;
        build(twins[1], false, seed);
    }
    if (data[0] & 4)
        ++clockSeconds;
    WriteOptions options = writtenBy(writer);
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
    if (normalized(a->objectJson, twins[0]) != normalized(b->objectJson, twins[1])) {
        std::fprintf(stderr,
                     "shortcut: %s\ngeneral:  %s\n",
                     normalized(a->objectJson, twins[0]).constData(),
                     normalized(b->objectJson, twins[1]).constData());
        fail("the committed objects differ");
    }
    if (a->warnings != b->warnings)
        fail("the warnings differ");
    if (!a->objectJson.isEmpty()) {
        for (Twin &twin : twins)
            delete std::exchange(twin.cluster, nullptr);
    }
    return 0;
}
