#pragma once

#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>

namespace reconscope::controller::cluster {

// The documents of a (multi-document) YAML manifest as JSON, scalars resolved as sigs.k8s.io/yaml
// does for the YAML 1.2 core schema (quoted scalars stay strings; integers stay int64). Empty
// documents are skipped.
models::Result<QList<nlohmann::json>> yamlDocumentsToJson(const QByteArray &yaml);

} // namespace reconscope::controller::cluster
