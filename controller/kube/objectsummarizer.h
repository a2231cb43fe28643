#pragma once

#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "models/result.h"

#include <QByteArrayView>

#include <memory>

namespace reconscope::controller::kube {

class StringPool;

// ObjectSummary::fromBytes' result, faster: jsonscan walks the object (validating it) and only the
// values a summary reads (metadata identity, labels, finalizers, status.observedGeneration,
// status.conditions and the mapping's paths) are parsed into a tree, instead of a SAX pass that
// lexes every string of the object into a std::string. One per mapping; const methods are safe on
// any thread.
class ObjectSummarizer
{
public:
    explicit ObjectSummarizer(const models::LifecycleMapping &mapping);
    ~ObjectSummarizer();
    ObjectSummarizer(const ObjectSummarizer &) = delete;
    ObjectSummarizer &operator=(const ObjectSummarizer &) = delete;

    // With `strings`, the summary's shared strings come out interned there (as
    // StringPool::intern(ObjectSummary &) leaves them), most of them straight from the bytes.
    models::Result<models::ObjectSummary> summarize(QByteArrayView json,
                                                    StringPool *strings = nullptr) const;

    struct Node; // the wanted paths as a trie

private:
    // The general way (a tree of the wanted paths), for what the plain reader leaves.
    models::Result<models::ObjectSummary> walk(QByteArrayView json) const;

    models::LifecycleMapping m_mapping;
    std::unique_ptr<Node> m_paths;
    bool m_plain = false; // objects of the usual shape are read without a tree (no projections)
};

} // namespace reconscope::controller::kube
