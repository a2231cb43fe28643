#pragma once

#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "models/result.h"

#include <QByteArrayView>

namespace reconscope::controller::kube {

class StringPool;

// The client's summary reader: ObjectSummary::fromBytes' result, read faster for objects of the
// usual shape (a mapping without projected paths, plain names and values: most objects), straight
// from the text into the summary with jsonscan; every other object goes to fromBytes, the one
// general reader. The fuzzer (tests/fuzz/fuzz_summarizer) holds the two equal. One per mapping;
// const methods are safe on any thread.
class ObjectSummarizer
{
public:
    explicit ObjectSummarizer(const models::LifecycleMapping &mapping);
    ObjectSummarizer(const ObjectSummarizer &) = delete;
    ObjectSummarizer &operator=(const ObjectSummarizer &) = delete;

    // With `strings`, the summary's shared strings come out interned there (as
    // StringPool::intern(ObjectSummary &) leaves them), most of them straight from the bytes.
    models::Result<models::ObjectSummary> summarize(QByteArrayView json,
                                                    StringPool *strings = nullptr) const;

private:
    models::LifecycleMapping m_mapping;
    bool m_plain = false; // objects of the usual shape are read without a tree (no projections)
};

} // namespace reconscope::controller::kube
