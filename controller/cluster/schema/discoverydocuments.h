#pragma once

#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::cluster {

// APIGroupDiscoveryList (apidiscovery.k8s.io/v2) for /api (coreGroup) or /apis. Only served
// versions appear; groups keep the order of `types`, versions are sorted kube-aware (v2 > v1 >
// v1beta1 > v1alpha1), the first being the preferred one.
nlohmann::json aggregatedDiscovery(const QList<ResourceType> &types, bool coreGroup);
nlohmann::json apiVersions(); // legacy GET /api
nlohmann::json apiGroupList(const QList<ResourceType> &types); // legacy GET /apis
// GET /apis/G; null when no served version of G exists (the caller answers 404).
nlohmann::json apiGroup(const QString &group, const QList<ResourceType> &types);
// GET /apis/G/V or /api/v1 (groupVersion "v1"); null when nothing is served there. Lists
// "plural/status" and "plural/scale" entries only for the subresources a version has.
nlohmann::json apiResourceList(const QString &groupVersion, const QList<ResourceType> &types);

} // namespace reconscope::controller::cluster
