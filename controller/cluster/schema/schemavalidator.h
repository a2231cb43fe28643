#pragma once

#include "controller/cluster/schema/schemanode.h"

#include <functional>

// structural::validate()'s walk, split by what it checks: types, combinators, scalars and objects
// in schemavalidator.cpp, arrays and their list types in schemalisttypes.cpp. Internal to
// reconscope_schema.
namespace reconscope::controller::cluster::structural {

// The JSON type of a decoded value as kube-openapi names it.
std::string jsonType(const nlohmann::json &x);
// -1, 0, 1; exact for integers, through double only when a float is involved.
int compareNumbers(const nlohmann::json &a, const nlohmann::json &b);
// A path as the field of a FieldError.
QString fieldOf(const std::string &path);
// The name kube-openapi puts into its messages ("spec.replicas in body ...").
QString nameOf(const std::string &path);

class Validator
{
public:
    QList<FieldError> errors;

    // `old` is the correlated value of the previous object on an update (null on create, or
    // where no correlation exists): CRD validation ratcheting skips unchanged values.
    void validate(const SchemaNode &s,
                  const nlohmann::json &x,
                  const std::string &path,
                  const nlohmann::json *old = nullptr);

private:
    static QList<FieldError> validateOnly(const SchemaNode &s,
                                          const nlohmann::json &x,
                                          const std::string &path,
                                          const nlohmann::json *old);
    void composite(const QString &message);
    void validateCombinators(const SchemaNode &s,
                             const nlohmann::json &x,
                             const std::string &path,
                             const nlohmann::json *old);
    void validateString(const SchemaNode &s, const nlohmann::json &x, const std::string &path);
    void validateNumber(const SchemaNode &s, const nlohmann::json &x, const std::string &path);
    void validateEnum(const SchemaNode &s, const nlohmann::json &x, const std::string &path);
    void validateEmbeddedTypeMeta(const nlohmann::json &x, const std::string &path);
    void validateObject(const SchemaNode &s,
                        const nlohmann::json &x,
                        const std::string &path,
                        const nlohmann::json *old);

    // schemalisttypes.cpp
    void validateArray(const SchemaNode &s,
                       const nlohmann::json &x,
                       const std::string &path,
                       const nlohmann::json *old);
    void duplicates(const std::vector<nlohmann::json> &keys,
                    const std::string &path,
                    const std::function<nlohmann::json(std::size_t)> &shown);
    void validateSet(const nlohmann::json &x, const std::string &path);
    void validateListMap(const SchemaNode &s, const nlohmann::json &x, const std::string &path);
};

} // namespace reconscope::controller::cluster::structural
