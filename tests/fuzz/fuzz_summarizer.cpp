// libFuzzer target: the product's summary reader (controller/kube/objectsummarizer, jsonscan)
// against the reference reader (tests/oracle: nlohmann's SAX parser over the whole object).
//
// Invariant, for any input text: both accept it or both refuse it with the same message, and an
// accepted object gives the same summary, field by field; text that is not UTF-8 (which the
// client accepts as Go does and nlohmann refuses) only has to go through unharmed. The mapping
// projects a few paths (deep ones, a whole array, paths through arrays and absent members), which
// the summarizer reads through its small tree; each input also goes through a summarizer without
// projections, which reads objects of the usual shape straight into the summary (PlainReader).

#include "controller/kube/fastlist/stringpool.h"
#include "controller/kube/objectsummarizer.h"
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "tests/oracle/summaryoracle.h"

#include <QByteArrayView>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Qt::StringLiterals;
using reconscope::controller::kube::ObjectSummarizer;
using reconscope::controller::kube::StringPool;
using reconscope::models::LifecycleMapping;
using reconscope::models::ObjectSummary;

namespace {

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "fuzz_summarizer: the summaries differ in %s\n", what);
    std::abort();
}

#define SAME(member) \
    if (!(fast.member == reference.member)) \
    fail(#member)

void compare(const ObjectSummary &fast, const ObjectSummary &reference)
{
    SAME(key);
    SAME(namespaceName);
    SAME(name);
    SAME(apiVersion);
    SAME(kind);
    SAME(uid);
    SAME(resourceVersion);
    SAME(generation);
    SAME(observedGeneration);
    SAME(creationTimestamp);
    SAME(markedForDeletion);
    SAME(deletionTimestamp);
    SAME(finalizers);
    SAME(labels);
    SAME(managedFields);
    SAME(conditions);
    SAME(hasStatus);
    SAME(statusFieldCount);
    SAME(fields);
    SAME(readProblems);
    SAME(kstatusUnreadable);
}

#undef SAME

LifecycleMapping fuzzMapping()
{
    LifecycleMapping mapping = LifecycleMapping::defaults();
    mapping.healthPath = u"status.health.status"_s;
    mapping.statusFields = { u"status.sync"_s,
                             u".status.history"_s,
                             u"status.missing.field"_s,
                             u"spec.replicas"_s,
                             u"status.phase"_s };
    return mapping;
}

void check(const ObjectSummarizer &summarizer,
           const LifecycleMapping &mapping,
           const QByteArrayView text)
{
    const auto fast = summarizer.summarize(text);
    const auto reference = reconscope::tests::referenceSummary(text, mapping);
    // Interning as it reads changes nothing either: through a pool of this input's own (one
    // kept across inputs would hold up to its bound of fuzzed strings), met once and again.
    StringPool strings;
    for (int pass = 0; pass < 2; ++pass) {
        const auto pooled = summarizer.summarize(text, &strings);
        if (pooled.ok() != fast.ok())
            fail("whether the object is accepted when interning");
        if (pooled.ok())
            compare(*pooled, *fast);
    }
    // Like Go's decoder (which reads them as U+FFFD), the client takes ill-formed UTF-8 and lone
    // surrogate escapes in stride (tst_hostileclient::invalidUtf8InWatchedObject); nlohmann
    // refuses them. Such text only has to be summarised without harm.
    if (!reference.ok()
        && (reference.error().message.contains(u"UTF-8"_s)
            || reference.error().message.contains(u"surrogate"_s)))
        return;
    if (fast.ok() != reference.ok())
        fail("whether the object is accepted");
    if (!reference.ok()) {
        if (fast.error().message != reference.error().message) {
            std::fprintf(stderr,
                         "fast: %s\nreference: %s\n",
                         qPrintable(fast.error().message),
                         qPrintable(reference.error().message));
            fail("the error message");
        }
        return;
    }
    compare(*fast, *reference);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArrayView text(reinterpret_cast<const char *>(data), qsizetype(size));
    // With projected paths: the summarizer's small tree (and its string pool).
    static const LifecycleMapping projecting = fuzzMapping();
    static const ObjectSummarizer general(projecting);
    check(general, projecting, text);
    // Without: objects of the usual shape are read straight into the summary (PlainReader),
    // the others through the small tree.
    static const LifecycleMapping plain = LifecycleMapping::defaults();
    static const ObjectSummarizer reading(plain);
    check(reading, plain, text);
    return 0;
}
