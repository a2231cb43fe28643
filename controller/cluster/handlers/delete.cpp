#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"
#include "controller/cluster/objectjson.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::DeleteOptions;
using apimachinery::ListOptions;

namespace {

// DeleteOptions from the query and from the body, validated as upstream does.
std::optional<ApiError> parseDeleteOptions(const ApiRequest &request, DeleteOptions &options)
{
    QStringList dryRun = request.query.allQueryItemValues(u"dryRun"_s, QUrl::FullyDecoded);
    QList<FieldError> errors;
    bool propagationSet = request.query.hasQueryItem(u"propagationPolicy"_s);
    options.propagationPolicy = queryValue(request, u"propagationPolicy"_s);
    if (request.query.hasQueryItem(u"orphanDependents"_s))
        options.orphanDependents = queryFlag(request, u"orphanDependents"_s);
    if (!request.body.trimmed().isEmpty()) {
        auto body = parseBody(request, true);
        if (!body)
            return body.error();
        if (!body->is_object())
            return ApiError::badRequest(u"the body of the request must be DeleteOptions"_s);
        const json &policy = objectjson::member(*body, "propagationPolicy");
        if (policy.is_string()) {
            propagationSet = true;
            options.propagationPolicy = QString::fromStdString(policy.get<std::string>());
        }
        const json &orphan = objectjson::member(*body, "orphanDependents");
        if (orphan.is_boolean())
            options.orphanDependents = orphan.get<bool>();
        const json &preconditions = objectjson::member(*body, "preconditions");
        options.preconditionUid = objectjson::string(preconditions, "uid");
        options.preconditionResourceVersion = objectjson::string(preconditions, "resourceVersion");
        const QStringList bodyDryRun = objectjson::strings(objectjson::member(*body, "dryRun"));
        if (!bodyDryRun.isEmpty())
            dryRun = bodyDryRun;
    }
    if (propagationSet && options.orphanDependents)
        errors.append(
            { u"FieldValueInvalid"_s,
              u"propagationPolicy"_s,
              u"Invalid value: \"%1\": orphanDependents and deletionPropagation cannot be both set"_s
                  .arg(options.propagationPolicy) });
    if (propagationSet && options.propagationPolicy != u"Foreground"
        && options.propagationPolicy != u"Background" && options.propagationPolicy != u"Orphan")
        errors.append(
            { u"FieldValueNotSupported"_s,
              u"propagationPolicy"_s,
              u"Unsupported value: \"%1\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""_s
                  .arg(options.propagationPolicy) });
    errors.append(validateDryRun(dryRun));
    if (!errors.isEmpty())
        return optionsInvalid(u"DeleteOptions"_s, errors);
    options.dryRun = !dryRun.isEmpty();
    return std::nullopt;
}

} // namespace

ApiResponse serveDelete(const ResourceRequest &r)
{
    const ApiRequest &request = r.request;
    DeleteOptions options;
    if (auto error = parseDeleteOptions(request, options))
        return errorResponse(request, *error);
    if (r.verb == u"deletecollection") {
        ListOptions listOptions;
        listOptions.labelSelector = queryValue(request, u"labelSelector"_s);
        listOptions.fieldSelector = queryValue(request, u"fieldSelector"_s);
        auto result = deleteCollection(r.verbs, r.type, r.ns, listOptions, options);
        if (!result)
            return errorResponse(request, result.error());
        return jsonResponse(request, 200, *result);
    }
    auto result = deleteObject(r.verbs, r.type, r.ns, r.name, options);
    if (!result)
        return errorResponse(request, result.error());
    int code = 200;
    if (result->object.value("kind", "") != "Status" && options.orphanDependents
        && !*options.orphanDependents)
        code = 202;
    if (result->object.value("kind", "") == "Status") {
        // Keep upstream's Status field order.
        nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
        for (const char *key : { "kind", "apiVersion", "metadata", "status" })
            ordered[key] = result->object[key];
        nlohmann::ordered_json details = nlohmann::ordered_json::object();
        for (const char *key : { "name", "group", "kind", "uid" }) {
            if (result->object["details"].contains(key))
                details[key] = result->object["details"][key];
        }
        ordered["details"] = details;
        return orderedResponse(request, code, ordered);
    }
    return jsonResponse(request, code, result->object);
}

} // namespace reconscope::controller::cluster
