#pragma once

#include "controller/kube/discovery.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace reconscope::controller::record {

// The cluster's served resources as a recording's Discovery record holds them: a JSON array of
// {"group", "version", "plural", "singular", "kind", "namespaced", "shortNames", "categories",
// "verbs", "preferredVersion", "status", "scale"}, so that a replay resolves resource arguments
// as kubectl would against the recorded cluster.
QByteArray discoveryToJson(const QList<kube::DiscoveredResource> &resources);
// The resources of such an array; entries that are not objects with a plural are left out.
QList<kube::DiscoveredResource> discoveryFromJson(QByteArrayView json);

} // namespace reconscope::controller::record
