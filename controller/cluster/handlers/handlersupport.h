#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/apitypes.h"
#include "controller/cluster/clustertypes.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <optional>

// What every request handler of the embedded cluster shares (kube-apiserver's handlers/rest.go
// and responsewriters): query options, request body decoding, response rendering.
namespace reconscope::controller::cluster {

extern const QByteArray kTableContentType;

QString queryValue(const ApiRequest &request, const QString &key);
// apimachinery's Convert_Slice_string_To_bool: present with any value but "0"/"false" is true.
bool queryFlag(const ApiRequest &request, const QString &key);
// An integer query parameter as metav1's conversion reads it (strconv.ParseInt, base 10, 64 bits),
// or the 400 with strconv's message: `strconv.ParseInt: parsing "ten": invalid syntax`.
models::Result<qint64, apimachinery::ApiError> parseQueryInteger(const QString &text);
bool wantsPretty(const ApiRequest &request);
// Accept asks for a meta.k8s.io/v1 Table.
bool wantsTable(const ApiRequest &request);
// Accept negotiated as kube-apiserver's NegotiateOutputMediaType does (the ranges by falling q,
// the first that names a type the server writes wins, JSON for */*), and YAML won.
bool wantsYaml(const ApiRequest &request);
// A JSON answer re-encoded as YAML (application/yaml); a watch, a Table or text stays as it is.
ApiResponse yamlResponse(ApiResponse response);

// The plain-text 404 of anything that does not resolve.
ApiResponse plainNotFound();
ApiResponse textResponse(int status, const QByteArray &text);
// `body` as compact JSON + "\n", or pretty when asked for.
ApiResponse jsonResponse(const ApiRequest &request, int status, const nlohmann::json &body);
ApiResponse
orderedResponse(const ApiRequest &request, int status, const nlohmann::ordered_json &body);
ApiResponse errorResponse(const ApiRequest &request, const apimachinery::ApiError &error);
// Already serialized JSON, re-indented only when pretty output is asked for.
ApiResponse rawResponse(const ApiRequest &request, int status, QByteArray body);
// A write's object: the committed bytes as they are, else `object` serialized.
ApiResponse writeResponse(const ApiRequest &request, int status, const WriteResult &result);
void addWarnings(ApiResponse &response, const QStringList &warnings);
// The answer to a create, update or patch: the object with its Warning headers, or the error.
ApiResponse writeAnswer(const ApiRequest &request,
                        const apimachinery::ApiResult<WriteResult> &result);

// Options kinds name the 422s of option validation: "CreateOptions.meta.k8s.io "" is invalid".
apimachinery::ApiError optionsInvalid(const QString &kind, const QList<FieldError> &errors);
QList<FieldError> validateDryRun(const QStringList &values);
// dryRun, fieldManager and fieldValidation of a create, update or patch, and the User-Agent that
// names the write's manager when no fieldManager does; for a patch (`patchType`) also force,
// forbidden but for apply, which requires a fieldManager.
std::optional<apimachinery::ApiError>
parseWriteOptions(const ApiRequest &request,
                  const QString &optionsKind,
                  WriteOptions &options,
                  std::optional<apimachinery::PatchType> patchType = std::nullopt);
// The options and the body of a create or update, the object not to be returned parsed (the
// response is the committed bytes).
models::Result<nlohmann::json, apimachinery::ApiError> parseWriteRequest(const ApiRequest &request,
                                                                         const QString &optionsKind,
                                                                         const ResourceType &type,
                                                                         WriteOptions &options);
// The request body as JSON (or YAML). `protobuf`: the type is a built-in one, whose codecs also
// read protobuf (custom resources read JSON and YAML only); the 415 lists what the endpoint
// accepts, as upstream does. A body that is not a JSON object is refused in encoding/json's words;
// with `decodeKind` (the kind the body must be) the message names it and quotes the body, as
// handlers/rest.go's transformDecodeError does for creates and updates.
models::Result<nlohmann::json, apimachinery::ApiError>
parseBody(const ApiRequest &request, bool protobuf, const QString &decodeKind = {});
// The patch type of the Content-Type, or the 415 naming what the type accepts: strategic merge
// for built-in kinds only, as kube-apiserver; apply patches for every kind, but not through
// /scale (`apply` false: a stated divergence, docs/fieldownership.md).
models::Result<apimachinery::PatchType, apimachinery::ApiError>
patchTypeOf(const ApiRequest &request, bool builtin, bool apply = true);

} // namespace reconscope::controller::cluster
