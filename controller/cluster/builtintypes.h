#pragma once

#include "controller/cluster/resourcetype.h"

#include <QList>

namespace reconscope::controller::cluster {

// The built-in kinds the embedded cluster serves, with their real names, scopes, short names and
// subresources (schema null: not schema-checked): v1 namespaces, pods, secrets, configmaps,
// events, resourcequotas, services, serviceaccounts; apps/v1 deployments, replicasets;
// coordination.k8s.io/v1 leases; apiextensions.k8s.io/v1 customresourcedefinitions.
QList<ResourceType> builtinResourceTypes();

// Whether writes to this kind maintain metadata.generation (CRs and the built-ins that have it).
bool tracksGeneration(const ResourceType &type);

// The field selectors a built-in kind supports beyond metadata.name/namespace, as JSON paths
// (".spec.nodeName").
QStringList builtinSelectableFields(const ResourceType &type);

} // namespace reconscope::controller::cluster
