#pragma once

// The reference reader of object summaries, for the tests only: nlohmann's SAX parser over the
// whole text, keeping ObjectSummary::readPaths() as a small tree for ObjectSummary::fromJson. It
// was the product's general reader; the product now reads summaries with one reader, the client's
// ObjectSummarizer, which the fuzzer (tests/fuzz/fuzz_summarizer) and tst_summaryreaders hold
// equal to this one: the same summaries, and the same words for text that is not an object.
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"
#include "models/result.h"

#include <QByteArrayView>

namespace reconscope::tests {

models::Result<models::ObjectSummary> referenceSummary(QByteArrayView json,
                                                       const models::LifecycleMapping &mapping);

} // namespace reconscope::tests
