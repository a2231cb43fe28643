#pragma once

#include "controller/apimachinery/status.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "models/result.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace reconscope::controller::kube {

// One served resource (group/version/plural) as discovery or a CRD describes it.
struct DiscoveredResource
{
    QString group; // empty for the core group
    QString version;
    QString plural;
    QString singular;
    QString kind;
    bool namespaced = true;
    QStringList shortNames;
    QStringList categories;
    QStringList verbs;
    bool statusSubresource = false;
    bool scaleSubresource = false;
    bool preferredVersion = false; // the group's preferred (first) version
    bool fromCrd = false; // known from a CustomResourceDefinition (possibly before discovery)

    apimachinery::ResourceRef ref() const
    {
        return apimachinery::ResourceRef{ group, version, plural, namespaced };
    }
    QString groupVersion() const { return group.isEmpty() ? version : group + u'/' + version; }
    // "customapps.infrastructure.internal.net" or "pods".
    QString qualifiedName() const { return group.isEmpty() ? plural : plural + u'.' + group; }
};

// Parses discovery documents (exposed for tests and for other clients).
namespace discovery {
// Whether a Content-Type announces an aggregated APIGroupDiscoveryList (v2 or v2beta1).
bool isAggregated(const QByteArray &contentType);
// An APIGroupDiscoveryList (/api or /apis). Resources without responseKind are dropped.
models::Result<QList<DiscoveredResource>> parseAggregated(const QByteArray &body);
// A legacy APIResourceList for one group version ("/apis/G/V" or "/api/v1").
models::Result<QList<DiscoveredResource>> parseResourceList(const QByteArray &body,
                                                            const QString &group,
                                                            const QString &version,
                                                            bool preferred);
// The served versions of a CRD (only when Established, or when it has no status yet).
QList<DiscoveredResource> fromCrd(const QByteArray &crdJson);
// kubectl's resolution of a resource argument: plural, singular, short name or kind (case-
// insensitive), optionally qualified by group ("plural.group") or version and group
// ("plural.version.group"). The preferred version of the first matching group wins.
models::Result<DiscoveredResource> resolve(const QList<DiscoveredResource> &resources,
                                           const QString &argument);
} // namespace discovery

// Discovery for one cluster: served resources from /api and /apis (aggregated v2 when the server
// offers it, else the legacy per-group documents), plus every CRD, listed and watched so that a
// new CRD shows up live (its resources at once from the CRD, then confirmed by a re-discovery).
class DiscoveryClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DiscoveryClient)

public:
    static const apimachinery::ResourceRef CustomResourceDefinitions;
    static const QByteArray AggregatedAccept;

    explicit DiscoveryClient(RestClient *client, QObject *parent = nullptr);
    ~DiscoveryClient() override;

    // Runs discovery (again); resourcesChanged() or discoveryFailed() follows.
    void refresh();
    // Lists and watches CustomResourceDefinitions; every change refreshes discovery.
    void watchCrds();
    void stop();

    bool aggregated() const { return m_aggregated; }
    QList<DiscoveredResource> resources() const;
    models::Result<DiscoveredResource> resolve(const QString &argument) const;
    // Raw JSON of the known CRDs by name (plural.group): schemas and printer columns.
    const QHash<QString, QByteArray> &crds() const { return m_crds; }
    Reflector *crdReflector() const { return m_crdReflector; }

signals:
    void resourcesChanged();
    void discoveryFailed(const reconscope::controller::apimachinery::ApiError &error);
    void crdsChanged(const QStringList &upserted, const QStringList &removed);

private:
    void handleRoot(bool core, models::Result<RawResponse, apimachinery::ApiError> response);
    void requestGroupVersion(const QString &group, const QString &version, bool preferred);
    void finishPart(const std::optional<apimachinery::ApiError> &error);
    void handleCrdDeltas(const QList<Delta> &deltas);

    RestClient *m_client;
    Reflector *m_crdReflector = nullptr;
    QTimer *m_refreshTimer;
    quint64 m_round = 0;
    int m_pending = 0;
    std::optional<apimachinery::ApiError> m_roundError;
    QList<DiscoveredResource> m_coreResources;
    QList<DiscoveredResource> m_groupResources;
    QList<DiscoveredResource> m_discovered;
    QHash<QString, QByteArray> m_crds;
    bool m_aggregated = false;
};

} // namespace reconscope::controller::kube
