#pragma once

#include <nlohmann/json.hpp>

#include <string>

// A v1 PodSpec seen as kube-apiserver's internal core.PodSpec (internaltypes.h), for the message
// of ValidatePodUpdate, which shows a refused change as diff.Diff of the two internal specs.
namespace reconscope::controller::cluster {

// The internal PodSpec converted from v1 `spec` as json.MarshalIndent(spec, "", " ") writes it:
// every field under its Go name in declaration order, nil as null, quantities canonical.
std::string internalPodSpecJson(const nlohmann::json &spec);

// Whether two v1 specs are apiequality.Semantic.DeepEqual as internal PodSpecs: empty lists and
// maps equal to absent ones, quantities compared by value.
bool podSpecsSemanticallyEqual(const nlohmann::json &a, const nlohmann::json &b);

// diff.Diff(old, updated) of the two specs: the unified diff of their internal JSON.
std::string podSpecDiff(const nlohmann::json &old, const nlohmann::json &updated);

} // namespace reconscope::controller::cluster
