#pragma once

#include "controller/kube/discovery.h"
#include "models/lifecyclemapping.h"
#include "models/result.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <utility>

namespace reconscope::controller::kube {
class RestClient;
}

namespace reconscope::app {

// A RESOURCE argument resolved as kubectl resolves it, against the server's discovery, and how
// its objects' lifecycle is read (from its CRD, for a custom resource whose rules need it).
struct LookedUpResource
{
    controller::kube::DiscoveredResource resource;
    models::LifecycleMapping mapping;
};

// The object a command names as kubectl names it: RESOURCE/NAME, or RESOURCE NAME (the positional
// arguments); nothing when they name no single object.
std::optional<std::pair<QString, QString>> objectTarget(const QStringList &positional);

// Reads discovery (and the CRD), then calls done once on context's thread; an error says what
// could not be resolved or read.
void lookUpResource(controller::kube::RestClient *client,
                    const QString &argument,
                    QObject *context,
                    std::function<void(models::Result<LookedUpResource>)> done);

} // namespace reconscope::app
