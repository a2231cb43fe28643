#pragma once

#include "controller/cluster/apitypes.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/registry/verbs.h"

namespace reconscope::controller::cluster {

class Cluster;

// One resource request as ApiServer resolved it (path, scope, verb, authorization done), with
// the parts of the cluster its handler works on. One handler per verb, as kube-apiserver's
// endpoints/handlers: each decodes the request's options and body, calls the verb and renders
// the answer.
struct ResourceRequest
{
    const ApiRequest &request;
    Cluster *cluster;
    Store &store;
    VerbContext &verbs;
    TypePtr type;
    QString ns; // "" for cluster-scoped kinds and for lists and watches across namespaces
    QString name; // "" for collections
    QString verb; // get list watch create update patch delete deletecollection
    bool status = false; // the status subresource
};

ApiResponse serveGet(const ResourceRequest &r);
// `stream`: a plain JSON list is answered in ApiResponse::bodyPieces.
ApiResponse serveList(const ResourceRequest &r, bool stream);
ApiResponse serveWatch(const ResourceRequest &r);
ApiResponse serveCreate(const ResourceRequest &r);
ApiResponse serveUpdate(const ResourceRequest &r);
ApiResponse servePatch(const ResourceRequest &r);
// delete and deletecollection.
ApiResponse serveDelete(const ResourceRequest &r);
// get, update and patch of the scale subresource.
ApiResponse serveScale(const ResourceRequest &r);

// The 422 of list and watch options that contradict each other, as upstream's validation.
std::optional<apimachinery::ApiError> validateListOptions(const ApiRequest &request, bool watch);

} // namespace reconscope::controller::cluster
