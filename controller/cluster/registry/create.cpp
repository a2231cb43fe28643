#include "controller/cluster/registry/verbs.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/admission.h"
#include "controller/cluster/registry/builtindecode.h"
#include "controller/cluster/registry/fieldmanagers.h"

#include <QRandomGenerator>
#include <QUuid>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;

namespace {

QString randomSuffix()
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString suffix;
    for (int i = 0; i < 5; ++i)
        suffix += QChar::fromLatin1(alphabet[QRandomGenerator::global()->bounded(27)]);
    return suffix;
}

// rest.BeforeCreate: system fields, generateName, status subresource.
void beforeCreate(const VerbContext &context, const TypeEntry &type, json &object, QString &name)
{
    json &metadata = object["metadata"];
    for (const char *key : { "uid",
                             "creationTimestamp",
                             "deletionTimestamp",
                             "deletionGracePeriodSeconds",
                             "selfLink" })
        metadata.erase(key);
    const QString generateName = objectjson::string(metadata, "generateName");
    if (name.isEmpty() && !generateName.isEmpty()) {
        name = generateName.left(58) + randomSuffix();
        metadata["name"] = name.toStdString();
    }
    metadata["uid"] = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
    metadata["creationTimestamp"] = context.now().toStdString();
    if (tracksGeneration(type.type))
        metadata["generation"] = 1;
    else
        metadata.erase("generation");
    if (type.type.statusSubresource && !isNamespaceType(type.type))
        object.erase("status");
}

} // namespace

ApiResult<WriteResult> createObject(VerbContext &context,
                                    const TypePtr &typePtr,
                                    const QString &ns,
                                    json object,
                                    const WriteOptions &options,
                                    ManagedFieldsFrom from)
{
    const TypeEntry &type = *typePtr;
    if (!object.is_object())
        return ApiError::badRequest(u"the body of the request must be a JSON object"_s);
    if (auto error = builtinDecodeError(type.type, object))
        return *error;
    QString name = objectjson::string(objectjson::member(object, "metadata"), "name");
    if (auto error = context.admission.checkTypeMeta(type, object, name))
        return *error;
    json &metadata = object["metadata"];

    // Namespace of the object against the request's.
    if (auto error = Admission::adoptRequestNamespace(type.type, metadata, ns))
        return *error;

    QStringList warnings;
    const bool applied = from == ManagedFieldsFrom::Apply;
    if (auto error = context.admission.applySchema(type, object, options, warnings, false, applied))
        return *error;

    if (auto error = context.admission.admitNamespace(type, ns, name))
        return *error;

    // The field manager sees the object as decoded and defaulted (upstream's create handler runs
    // it before rest.BeforeCreate and the strategy).
    if (from == ManagedFieldsFrom::Update) {
        Admission::applyDecodeDefaults(type, object);
        object = recordUpdate(type.type,
                              type.fieldManagers->main,
                              createdFrom(type.type),
                              std::move(object),
                              options);
    }
    beforeCreate(context, type, object, name);
    context.admission.prepareBuiltinForCreate(type, object);
    // Defaulting a second time (applySchema defaulted the body) is deliberate: kube-apiserver
    // defaults the decoded request and again the object it reads back from storage, so defaults
    // that hold for what the strategy or the first pass set appear here as they do there.
    Admission::applyDefaults(type, object, applied);

    if (auto error = context.admission.validateObject(type, object, true, {}))
        return *error;
    context.store.coerceForStorage(type, object);

    if (context.store.find(type, ns, name))
        return ApiError::alreadyExists(type.type.group, type.type.plural, name);
    const json &rv = objectjson::member(metadata, "resourceVersion");
    const bool rvSet = !rv.is_null() && !(rv.is_string() && rv.get<std::string>().empty());

    WriteResult result;
    result.warnings = warnings;
    result.httpStatus = 201;
    if (options.dryRun) {
        // Upstream's dry-run storage only checks existence and echoes the prepared object: the
        // resourceVersion check lives in etcd3's Create, which a dry run never reaches, so a
        // client's resourceVersion is echoed and an unset one stays unset.
        if (!rvSet)
            metadata.erase("resourceVersion");
        result.object = std::move(object);
        return result;
    }
    if (rvSet)
        return ApiError::internal(u"resourceVersion should not be set on objects to be created"_s);
    if (auto error = storageSizeError(objectjson::dump(object).size()))
        return *error;
    // Every member was pruned and defaulted by this type's schema above.
    RecordPtr record = context.store.commitPut(type, std::move(object), {}, nullptr, type.serial);
    if (isCrdType(type.type))
        context.controllers.crdWritten(record);
    // The response is the created object (for a CRD: before the establishing controller's status).
    context.store.setCommittedObject(result, type, record, options);
    context.controllers.run();
    return result;
}

} // namespace reconscope::controller::cluster
