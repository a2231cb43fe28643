#pragma once

#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArrayView>
#include <QList>

namespace reconscope::models {

// YAML -> JSON as Kubernetes tools read manifests and kubeconfigs (sigs.k8s.io/yaml, i.e. YAML 1.1
// as go-yaml v2 resolves it): plain scalars become booleans (true/false/yes/no/on/off/y/n in their
// three spellings), null (null, ~, empty), integers (decimal, 0x, 0o, 0b, leading-0 octal, '_'
// separators; int64, or uint64 above it) or floats; everything else, every quoted or block scalar
// and every !!str, stays a string. Map keys become strings. Merge keys (<<) are applied. .inf and
// .nan are errors (JSON has no such numbers), as are non-scalar keys and alias expansions larger
// than 10 million values.
// One document; empty input gives null. More than one document is an error.
Result<nlohmann::json> yamlToJson(QByteArrayView yaml);
// Every document of a multi-document stream ("---" separated), empty documents skipped.
Result<QList<nlohmann::json>> yamlDocumentsToJson(QByteArrayView yaml);

} // namespace reconscope::models
