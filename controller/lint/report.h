#pragma once

#include "controller/lint/boundarycheck.h"
#include "controller/lint/crdlint.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>

#include <optional>

namespace reconscope::controller::lint {

// What an SRE attaches to a design review: the lint findings of one or more CRDs and, optionally,
// the live boundary check's verdicts on one object.
struct BoundaryReport
{
    QList<CrdLintResult> lint;
    std::optional<BoundaryCheckResult> live;

    bool hasErrors() const; // an error-level finding, or a live verdict that failed
};

// {"crds":[{"name","group","kind","servedVersions","source","summary":{"error":n,...},
//   "findings":[{"id","severity","version","path","message"}]}],
//  "live":{"crd","apiVersion","resource","namespace","name","statusSubresource","statusProbe",
//          "specProbe","error","passed","verdicts":[{"id","pass","expectation","observed",
//          "request":{"method","url","contentType","body"},"response":{"code","fields"}}]}}
nlohmann::json reportJson(const BoundaryReport &report);
// GitHub-flavoured Markdown: a table of findings per CRD (or a clean bill), then the verdicts with
// the request and response that prove each.
QString reportMarkdown(const BoundaryReport &report);
// Plain text for a terminal: one line per finding or verdict, the explanation indented below.
QString reportText(const BoundaryReport &report);

} // namespace reconscope::controller::lint
