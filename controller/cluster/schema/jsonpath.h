#pragma once

#include <nlohmann/json.hpp>

#include <QList>
#include <QStringView>

namespace reconscope::controller::cluster {

// kubectl's JSONPath subset for printer columns and selectableFields: `.a.b`, `['a.b']`, `[n]`,
// `[-n]`, `[*]`, `.*`, `..name`, `[a:b]`, `[a,b]`, filters `[?(@.type=="Ready")]` (==, !=, <, <=,
// >, >=, and existence `[?(@.x)]`), with or without surrounding `{}` and a leading `$`. Missing
// keys are allowed (as the API server's table convertor allows them). Returns the matched values
// in order; empty when nothing matches or the path is malformed.
QList<nlohmann::json> evaluateJsonPath(QStringView path, const nlohmann::json &object);

// Whether `path` parses as such a JSONPath (CRD validation of printer columns).
bool isValidJsonPath(QStringView path);

} // namespace reconscope::controller::cluster
