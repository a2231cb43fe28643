#pragma once

#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "models/result.h"

#include <QByteArrayView>

#include <string>
#include <vector>

namespace reconscope::controller::kube {

class StringPool;

// The product's one reader of object summaries from bytes, with jsonscan: the summary
// ObjectSummary::fromJson gives of the object's tree, without building the tree. Objects of the
// usual shape (a mapping without projected paths, plain names and values: most objects) are read
// straight from the text into the summary; every other object (escaped or non-ASCII names and
// strings, a deletion, projected paths, repeated members, odd types) through a small tree of the
// members the summary reads. Invalid text is refused in nlohmann's words, located by
// models::findJsonObjectProblem. The fuzzer (tests/fuzz/fuzz_summarizer) and tst_summaryreaders
// hold it equal to the reference reader in tests/oracle. One per mapping; const methods are safe
// on any thread.
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
    std::vector<std::vector<std::string>> m_paths; // ObjectSummary::readPaths(m_mapping)
    bool m_plain = false; // objects of the usual shape are read without a tree (no projections)
};

} // namespace reconscope::controller::kube
