#include "controller/cluster/apiserver.h"

#include "controller/cluster/handlers/handlers.h"
#include "controller/cluster/handlers/handlersupport.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/discoverydocuments.h"
#include "controller/cluster/schema/openapi.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;

struct ApiServer::RequestInfo
{
    QString verb; // get list watch create update patch delete deletecollection
    QString group;
    QString version;
    QString resource;
    QString subresource;
    QString ns;
    QString name;
    bool namespacedUrl = false; // the path carried /namespaces/{ns}/
    bool collection = false;
};

namespace {

const QByteArray kAggregatedDiscovery
    = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

bool wantsAggregatedDiscovery(const ApiRequest &request)
{
    const QList<QByteArray> ranges = request.header("accept").split(',');
    for (const QByteArray &range : ranges) {
        const QList<QByteArray> params = range.split(';');
        bool list = false, v2 = false, group = false;
        for (QByteArray param : params) {
            param = param.trimmed();
            list = list || param == "as=APIGroupDiscoveryList";
            v2 = v2 || param == "v=v2";
            group = group || param == "g=apidiscovery.k8s.io";
        }
        if (list && v2 && group)
            return true;
    }
    return false;
}

// The embedded cluster's RBAC: system:masters may do anything, reconscope:viewers may read
// resources; every user may GET what system:discovery and system:public-info-viewer grant.
bool mayUseResource(const UserInfo &user, const QString &verb)
{
    const bool readVerb = verb == u"get" || verb == u"list" || verb == u"watch";
    return user.groups.contains(u"system:masters"_s)
        || (user.groups.contains(u"reconscope:viewers"_s) && readVerb);
}

bool mayUsePath(const UserInfo &user, const QString &verb, const QString &path)
{
    if (user.groups.contains(u"system:masters"_s))
        return true;
    const QString first = path.section(u'/', 1, 1);
    const bool discoveryPath = first == u"api" || first == u"apis" || first == u"openapi"
        || path == u"/version" || path == u"/healthz" || path == u"/livez" || path == u"/readyz";
    return verb == u"get" && discoveryPath;
}

json versionInfo()
{
    return json{ { "major", "1" },
                 { "minor", "32" },
                 { "emulationMajor", "1" },
                 { "emulationMinor", "32" },
                 { "minCompatibilityMajor", "1" },
                 { "minCompatibilityMinor", "31" },
                 { "gitVersion", "v1.32.0" },
                 { "gitCommit", "70d3cc986aa8221cd1dfb1121852688902d3bf53" },
                 { "gitTreeState", "clean" },
                 { "buildDate", "2024-12-11T17:59:15Z" },
                 { "goVersion", "go1.23.3" },
                 { "compiler", "gc" },
                 { "platform", "linux/amd64" } };
}

// The `{.a.b}` path of a scale subresource as JSON keys.

// Whether a go-restful route that takes or gives `types` matches `header` (a Content-Type or an
// Accept): one of its comma-separated media types, parameters dropped, is among them (or is
// "*/*" when `anyMatches`).
bool restfulMatches(const QByteArray &header, const QList<QByteArray> &types, bool anyMatches)
{
    for (QByteArray range : header.split(',')) {
        if (const qsizetype semicolon = range.indexOf(';'); semicolon >= 0)
            range.truncate(semicolon);
        range = range.trimmed();
        if ((anyMatches && range == "*/*") || types.contains(range))
            return true;
    }
    return false;
}

// go-restful's route selection for a built-in kind, after the method (kube-apiserver's installer
// routes): a patch's Content-Type must be a patch type, and Accept must name a type the route
// produces (lists and watches also the watch streams), else its 415 or 406.
std::optional<ApiError> restfulMediaError(const ApiRequest &request, const QString &verb)
{
    if (verb == u"patch") {
        // No Content-Type on a PATCH is taken for application/octet-stream.
        static const QList<QByteArray> consumed = { "application/json-patch+json",
                                                    "application/merge-patch+json",
                                                    "application/strategic-merge-patch+json",
                                                    "application/apply-patch+yaml" };
        if (!restfulMatches(request.header("content-type"), consumed, false))
            return ApiError::genericServerResponse(415, u"415: Unsupported Media Type"_s);
    }
    QList<QByteArray> produced
        = { "application/json", "application/yaml", "application/vnd.kubernetes.protobuf" };
    if (verb == u"list" || verb == u"watch")
        produced << "application/json;stream=watch"
                 << "application/vnd.kubernetes.protobuf;stream=watch";
    QByteArray accept = request.header("accept");
    if (accept.isEmpty())
        accept = "*/*";
    // A route's media types are matched whole: the stream types never match an Accept range,
    // whose parameters are dropped first.
    if (restfulMatches(accept, produced, true))
        return std::nullopt;
    return ApiError::genericServerResponse(406,
                                           u"406: Not Acceptable\n\nAvailable representations: "_s
                                               + QString::fromLatin1(produced.join(", ")));
}

} // namespace

ApiServer::ApiServer(Cluster *cluster)
    : m_cluster(cluster)
{ }

ApiHandler ApiServer::handler()
{
    return [this](const ApiRequest &request) {
        return handle(request);
    };
}

ApiResponse ApiServer::handle(const ApiRequest &request)
{
    // Nothing may throw across the transport's event loop: a bug answers 500, not a crash.
    try {
        return handleRequest(request);
    } catch (const std::exception &error) {
        // apimachinery's NewInternalError.
        ApiError internal
            = ApiError::internal(u"Internal error occurred: "_s + QString::fromUtf8(error.what()));
        internal.reason = u"InternalError"_s;
        internal.causes = { apimachinery::StatusCause{ {}, QString::fromUtf8(error.what()), {} } };
        return errorResponse(request, internal);
    }
}

ApiResponse ApiServer::handleRequest(const ApiRequest &request)
{
    if (!m_cluster)
        return errorResponse(request, ApiError::internal(u"the cluster is gone"_s));
    if (request.body.size() > maxBodyBytes)
        return errorResponse(request,
                             ApiError::requestEntityTooLarge(u"limit is %1"_s.arg(maxBodyBytes)));

    QString path = request.path;
    if (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    if (!path.startsWith(u'/'))
        return plainNotFound();
    const QStringList parts = path.mid(1).split(u'/');
    if (parts.contains(QString()) && path != u"/")
        return plainNotFound();

    const bool isApi = !parts.isEmpty() && parts[0] == u"api" && parts.size() >= 3;
    const bool isApis = !parts.isEmpty() && parts[0] == u"apis" && parts.size() >= 4;
    if (!isApi && !isApis) {
        // Non-resource URLs, by mayUsePath's rules.
        const QString verb = QString::fromLatin1(request.method).toLower();
        if (!mayUsePath(request.user, verb, u'/' + parts.join(u'/')))
            return errorResponse(request,
                                 ApiError::forbidden({},
                                                     {},
                                                     {},
                                                     u"User \"%1\" cannot %2 path \"%3\""_s.arg(
                                                         request.user.name, verb, request.path)));
        return handleNonResource(request, parts);
    }

    // Every authenticated user may ask what it may do (system:basic-user grants it).
    if (request.method == "POST"
        && parts
            == QStringList{
                u"apis"_s, u"authorization.k8s.io"_s, u"v1"_s, u"selfsubjectaccessreviews"_s })
        return handleAccessReview(request);
    const auto info = resolveResourcePath(request, parts, isApi);
    if (!info)
        return plainNotFound();
    if (auto refusal = authorize(request, *info))
        return errorResponse(request, *refusal);
    ApiResponse response = handleResource(request, *info);
    return wantsYaml(request) ? yamlResponse(std::move(response)) : response;
}

std::optional<ApiServer::RequestInfo>
ApiServer::resolveResourcePath(const ApiRequest &request, const QStringList &parts, bool isApi)
{
    RequestInfo info;
    QStringList rest;
    if (isApi) {
        info.version = parts[1];
        rest = parts.mid(2);
    } else {
        info.group = parts[1];
        info.version = parts[2];
        rest = parts.mid(3);
    }
    bool legacyWatch = false;
    if (!rest.isEmpty() && rest[0] == u"watch") {
        legacyWatch = true;
        rest.removeFirst();
        if (rest.isEmpty())
            return std::nullopt;
    }
    if (rest[0] == u"namespaces" && rest.size() > 1) {
        info.ns = rest[1];
        if (rest.size() > 2 && rest[2] != u"status" && rest[2] != u"finalize") {
            info.namespacedUrl = true;
            rest = rest.mid(2);
        }
    }
    if (rest.size() > 3)
        return std::nullopt;
    info.resource = rest[0];
    if (rest.size() > 1)
        info.name = rest[1];
    if (rest.size() > 2)
        info.subresource = rest[2];
    info.collection = info.name.isEmpty();

    const QByteArray &method = request.method;
    if (method == "GET") {
        if (!info.collection)
            info.verb = legacyWatch ? u"watch"_s : u"get"_s;
        else
            info.verb = (legacyWatch || queryFlag(request, u"watch"_s)) ? u"watch"_s : u"list"_s;
    } else if (method == "POST") {
        info.verb = u"create"_s;
    } else if (method == "PUT") {
        info.verb = u"update"_s;
    } else if (method == "PATCH") {
        info.verb = u"patch"_s;
    } else if (method == "DELETE") {
        info.verb = info.collection ? u"deletecollection"_s : u"delete"_s;
    } else {
        return std::nullopt;
    }
    return info;
}

std::optional<ApiError> ApiServer::authorize(const ApiRequest &request, const RequestInfo &info)
{
    if (!mayUseResource(request.user, info.verb)) {
        const QString resource
            = info.subresource.isEmpty() ? info.resource : info.resource + u'/' + info.subresource;
        const QString scope = info.ns.isEmpty() ? u"at the cluster scope"_s
                                                : u"in the namespace \"%1\""_s.arg(info.ns);
        const QString cause = u"User \"%1\" cannot %2 resource \"%3\" in API group \"%4\" %5"_s.arg(
            request.user.name, info.verb, resource, info.group, scope);
        return ApiError::forbidden(info.group, info.resource, info.name, cause);
    }
    return std::nullopt;
}

ApiResponse ApiServer::handleAccessReview(const ApiRequest &request)
{
    // JSON, YAML or (client-go's typed client) protobuf.
    auto parsed = parseBody(request, true, u"*v1.SelfSubjectAccessReview"_s);
    if (!parsed)
        return errorResponse(request, parsed.error());
    json review = std::move(parsed.value());
    if (!review.is_object() || !objectjson::member(review, "spec").is_object())
        return errorResponse(
            request, ApiError::badRequest(u"the body of the request must be a JSON object"_s));
    const json &spec = review["spec"];
    const json &resource = objectjson::member(spec, "resourceAttributes");
    const json &path = objectjson::member(spec, "nonResourceAttributes");
    if (resource.is_object() == path.is_object()) {
        const apimachinery::StatusCause cause{
            u"FieldValueInvalid"_s,
            u"Invalid value: \"null\": exactly one of nonResourceAttributes or "
            "resourceAttributes must be specified"_s,
            u"spec.resourceAttributes"_s
        };
        return errorResponse(
            request,
            ApiError::invalid(
                u"authorization.k8s.io"_s, u"SelfSubjectAccessReview"_s, {}, { cause }));
    }
    const bool allowed = resource.is_object()
        ? mayUseResource(request.user, objectjson::string(resource, "verb"))
        : mayUsePath(
            request.user, objectjson::string(path, "verb"), objectjson::string(path, "path"));
    json status = { { "allowed", allowed } };
    if (allowed)
        status["reason"] = request.user.groups.contains(u"system:masters"_s)
            ? "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole "
              "\"cluster-admin\" to Group \"system:masters\""
            : "RBAC: allowed by the embedded cluster's read-only role";
    review["apiVersion"] = "authorization.k8s.io/v1";
    review["kind"] = "SelfSubjectAccessReview";
    review["metadata"] = { { "creationTimestamp", nullptr } };
    review["status"] = std::move(status);
    return jsonResponse(request, 201, review);
}

ApiResponse ApiServer::handleNonResource(const ApiRequest &request, const QStringList &parts)
{
    if (request.method != "GET")
        return plainNotFound();
    Cluster &cluster = *m_cluster;
    const QString first = parts.value(0);
    if (parts.size() == 1 && (first == u"healthz" || first == u"livez" || first == u"readyz"))
        return textResponse(200, "ok");
    if (parts.size() == 1 && first == u"version")
        return jsonResponse(request, 200, versionInfo());
    const QList<ResourceType> types = cluster.servedTypes();
    if (first == u"api" && parts.size() == 1) {
        if (wantsAggregatedDiscovery(request)) {
            ApiResponse response = jsonResponse(request, 200, aggregatedDiscovery(types, true));
            response.contentType = kAggregatedDiscovery;
            return response;
        }
        return jsonResponse(request, 200, apiVersions());
    }
    if (first == u"api" && parts.size() == 2) {
        if (parts[1] != u"v1")
            return plainNotFound();
        return jsonResponse(request, 200, apiResourceList(u"v1"_s, types));
    }
    if (first == u"apis" && parts.size() == 1) {
        if (wantsAggregatedDiscovery(request)) {
            ApiResponse response = jsonResponse(request, 200, aggregatedDiscovery(types, false));
            response.contentType = kAggregatedDiscovery;
            return response;
        }
        return jsonResponse(request, 200, apiGroupList(types));
    }
    auto served = [&](const QString &group, const QString &version) {
        return std::any_of(types.begin(), types.end(), [&](const ResourceType &type) {
            return !group.isEmpty() && type.group == group
                && (version.isEmpty() || type.version == version);
        });
    };
    if (first == u"apis" && parts.size() == 2) {
        if (!served(parts[1], {}))
            return plainNotFound();
        return jsonResponse(request, 200, apiGroup(parts[1], types));
    }
    if (first == u"apis" && parts.size() == 3) {
        if (!served(parts[1], parts[2]))
            return plainNotFound();
        return jsonResponse(request, 200, apiResourceList(parts[1] + u'/' + parts[2], types));
    }
    if (first == u"openapi") {
        if (parts.size() == 2 && parts[1] == u"v2")
            return jsonResponse(request, 200, openApiV2(types));
        if (parts.size() == 2 && parts[1] == u"v3")
            return jsonResponse(request, 200, openApiV3Index(types));
        if (parts.size() == 4 && parts[1] == u"v3" && parts[2] == u"api" && parts[3] == u"v1")
            return jsonResponse(request, 200, openApiV3Document(u"v1"_s, types));
        if (parts.size() == 5 && parts[1] == u"v3" && parts[2] == u"apis"
            && served(parts[3], parts[4]))
            return jsonResponse(request, 200, openApiV3Document(parts[3] + u'/' + parts[4], types));
    }
    return plainNotFound();
}

ApiResponse ApiServer::handleResource(const ApiRequest &request, const RequestInfo &info)
{
    Cluster &cluster = *m_cluster;
    TypePtr type = cluster.m_store.lookup(info.group, info.version, info.resource);
    if (!type) {
        // A resource its group and version do not serve is go-restful's 404 inside a served
        // API (a Status); a path under no served group or version is the mux's plain text one.
        const QList<ResourceType> types = cluster.servedTypes();
        const bool servedVersion = std::any_of(types.begin(), types.end(), [&](const auto &t) {
            return t.group == info.group && t.version == info.version;
        });
        return servedVersion ? errorResponse(request, ApiError::genericServerResponse(404, {}))
                             : plainNotFound();
    }
    const ResourceType &rt = type->type;
    const bool namespaceObject = rt.builtin && rt.group.isEmpty() && rt.plural == u"namespaces";
    // Scope: namespaced kinds need /namespaces/{ns}/ except for list/watch across namespaces;
    // cluster-scoped kinds never take one.
    QString ns = info.ns;
    if (namespaceObject) {
        if (info.namespacedUrl)
            return plainNotFound();
        ns.clear();
    } else if (rt.namespaced) {
        if (!info.namespacedUrl) {
            if (!info.collection || (info.verb != u"list" && info.verb != u"watch"))
                return plainNotFound();
        }
    } else if (info.namespacedUrl) {
        return plainNotFound();
    }

    const ResourceRequest resource{ request,         &cluster,  cluster.m_store,
                                    cluster.m_verbs, type,      ns,
                                    info.name,       info.verb, info.subresource == u"status" };
    if (!info.subresource.isEmpty()) {
        const bool known = (info.subresource == u"status" && rt.statusSubresource)
            || (info.subresource == u"scale" && rt.scaleSubresource);
        if (!known) {
            if (rt.builtin)
                return errorResponse(request, ApiError::genericServerResponse(404, {}));
            return errorResponse(request, ApiError::notFound(rt.group, rt.plural, info.name));
        }
        if (info.verb != u"get" && info.verb != u"update" && info.verb != u"patch")
            return errorResponse(
                request,
                rt.builtin ? ApiError::methodNotAllowed()
                           : ApiError::methodNotSupported(rt.group, rt.plural, info.verb));
    }
    // go-restful routes no PUT or PATCH to a built-in collection and no POST to an object; the
    // CR handler takes them all, an update or patch then lacking the name and a create taking the
    // body's name.
    if (info.collection && (info.verb == u"update" || info.verb == u"patch"))
        return errorResponse(request,
                             rt.builtin ? ApiError::methodNotAllowed()
                                        : ApiError::badRequest(u"name must be provided"_s));
    if (!info.collection && info.verb == u"create" && rt.builtin)
        return errorResponse(request, ApiError::methodNotAllowed());
    if (rt.builtin) {
        if (auto error = restfulMediaError(request, info.verb))
            return errorResponse(request, *error);
    }
    if (info.subresource == u"scale")
        return serveScale(resource);

    if (info.verb == u"get")
        return serveGet(resource);
    if (info.verb == u"list")
        return serveList(resource, m_streamLists);
    if (info.verb == u"watch")
        return serveWatch(resource);
    if (info.verb == u"create")
        return serveCreate(resource);
    if (info.verb == u"update")
        return serveUpdate(resource);
    if (info.verb == u"patch")
        return servePatch(resource);
    return serveDelete(resource); // delete, deletecollection
}

} // namespace reconscope::controller::cluster
