#pragma once

#include <nlohmann/json.hpp>

#include <QByteArray>

namespace reconscope::models {

// JSON -> YAML as kubectl shows objects (`kubectl get -o yaml`): block style, keys in the object's
// order, multi-line strings as literal blocks, and every string that a YAML reader would take for
// something else (true, no, 123, 0x1f, ~, "", leading/trailing spaces, ": ") double-quoted, so that
// yamlToJson(jsonToYaml(x)) == x.
QByteArray jsonToYaml(const nlohmann::json &value);

} // namespace reconscope::models
