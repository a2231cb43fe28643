#pragma once

#include <nlohmann/json.hpp>

#include <QList>
#include <QStringView>

namespace reconscope::controller::cluster {

// kubectl's JSONPath subset for printer columns and selectableFields: `.a.b`, `['a.b']`, `[n]`,
// `[-n]`, `[*]`, `..name`, `[a:b]`, filters `[?(@.type=="Ready")]` (==, !=, <, <=, >, >=, and
// existence `[?(@.x)]`), with or without surrounding `{}`. Returns the matched values in order;
// empty when nothing matches or the path is malformed.
QList<nlohmann::json> evaluateJsonPath(QStringView path, const nlohmann::json &object);

} // namespace reconscope::controller::cluster
