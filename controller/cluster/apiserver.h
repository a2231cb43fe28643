#pragma once

#include "controller/cluster/apitypes.h"
#include "controller/cluster/cluster.h"

#include <QPointer>

namespace reconscope::controller::cluster {

// The HTTP face of a Cluster, transport-neutral (shared/spec/kube-api.md sections 1-7): resolves
// the path (core /api/v1 and /apis/G/V, namespaced and cluster-scoped, subresources status and
// scale), authorizes the user, parses list/watch/write options, dispatches to the Cluster and
// renders the response exactly as kube-apiserver does (Status bodies, the plain-text 404 for
// anything that does not resolve, compact JSON + "\n" or pretty, Warning headers, Tables,
// discovery, OpenAPI, /version, health).
//
// Authorization: group "system:masters" may do everything; group "reconscope:viewers" may
// get/list/watch; everyone else is forbidden (403 with the upstream message). Discovery, OpenAPI,
// /version and health checks are open to every user that reaches the handler (system:discovery).
class ApiServer
{
public:
    explicit ApiServer(Cluster *cluster);

    ApiResponse handle(const ApiRequest &request);
    // handle() bound to this object, for the transport.
    ApiHandler handler();
    // A plain JSON list (not pretty, not a Table) is answered in ApiResponse::bodyPieces, for a
    // transport that streams it; off by default, so that a caller reading `body` gets it whole.
    void setStreamLists(bool stream) { m_streamLists = stream; }

    static constexpr qsizetype maxBodyBytes = 3 * 1024 * 1024;

private:
    struct RequestInfo;

    ApiResponse handleRequest(const ApiRequest &request);
    // The verb and target of an /api or /apis path; nullopt when it does not resolve (404).
    static std::optional<RequestInfo>
    resolveResourcePath(const ApiRequest &request, const QStringList &parts, bool isApi);
    // RBAC as configured for the embedded cluster: the 403 for a user who may not.
    static std::optional<apimachinery::ApiError> authorize(const ApiRequest &request,
                                                           const RequestInfo &info);
    ApiResponse handleNonResource(const ApiRequest &request, const QStringList &parts);
    // POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews: what the caller may do, by the
    // rules authorize() applies (kubectl auth can-i and k9s ask it).
    static ApiResponse handleAccessReview(const ApiRequest &request);
    ApiResponse handleResource(const ApiRequest &request, const RequestInfo &info);

    QPointer<Cluster> m_cluster;
    bool m_streamLists = false;
};

} // namespace reconscope::controller::cluster
