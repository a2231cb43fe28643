#include "app/resourcelookup.h"

#include "app/transitionprinter.h"
#include "controller/kube/restclient.h"

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;

namespace reconscope::app {

void lookUpResource(kube::RestClient *client,
                    const QString &argument,
                    QObject *context,
                    std::function<void(models::Result<LookedUpResource>)> done)
{
    auto *discovery = new kube::DiscoveryClient(client, context);
    // Discovery may fail and succeed on a later refresh: done is called once.
    done = [done, called = std::make_shared<bool>(false)](auto result) {
        if (!std::exchange(*called, true))
            done(std::move(result));
    };
    QObject::connect(
        discovery,
        &kube::DiscoveryClient::resourcesChanged,
        context,
        [client, argument, discovery, done] {
            discovery->deleteLater();
            const auto resource = discovery->resolve(argument);
            if (!resource) {
                done(models::Result<LookedUpResource>::failure(resource.error().message));
                return;
            }
            LookedUpResource found{ resource.value(), lifecycleMapping(nullptr) };
            if (!lifecycleNeedsCrd(found.resource.group)) {
                done(found);
                return;
            }
            // The CRD tells how to read the lifecycle (condition names, whether there is a
            // status).
            client->get(kube::DiscoveryClient::CustomResourceDefinitions,
                        QString(),
                        found.resource.plural + u'.' + found.resource.group,
                        [found, done](kube::RestClient::JsonResult crd) mutable {
                            found.mapping = lifecycleMapping(crd ? &crd.value() : nullptr);
                            done(found);
                        });
        },
        Qt::SingleShotConnection);
    QObject::connect(
        discovery,
        &kube::DiscoveryClient::discoveryFailed,
        context,
        [discovery, done](const controller::apimachinery::ApiError &error) {
            discovery->deleteLater();
            done(models::Result<LookedUpResource>::failure(
                u"discovery failed: %1"_s.arg(error.message)));
        },
        Qt::SingleShotConnection);
    discovery->refresh();
}

std::optional<std::pair<QString, QString>> objectTarget(const QStringList &positional)
{
    QStringList target = positional;
    if (target.size() == 1 && target.first().contains(u'/'))
        target = { target.first().section(u'/', 0, 0), target.first().section(u'/', 1) };
    if (target.size() != 2 || target[0].isEmpty() || target[1].isEmpty())
        return std::nullopt;
    return std::pair{ target[0], target[1] };
}

} // namespace reconscope::app
