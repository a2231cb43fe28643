#pragma once

#include "models/jsonfields.h"

#include <optional>

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringList>

#include <vector>

// Small accessors for Kubernetes objects held as nlohmann::json, tolerant of missing or
// mistyped members (untrusted input).
namespace reconscope::controller::cluster::objectjson {

// models::jsonMember, models::jsonString and models::jsonStrings under this namespace's names.
inline const nlohmann::json &member(const nlohmann::json &object, const char *key)
{
    return models::jsonMember(object, key);
}
inline QString string(const nlohmann::json &object, const char *key)
{
    return models::jsonString(object, key);
}
inline QStringList strings(const nlohmann::json &array)
{
    return models::jsonStrings(array);
}
// A list of strings as a JSON array.
nlohmann::json array(const QStringList &strings);
// Whether compact, key-sorted object JSON starts with {"apiVersion":"<apiVersion>".
bool hasApiVersion(const QByteArray &compactJson, const QString &apiVersion);
// Whether two values are the same JSON down to the number types and bits (1, 1u and 1.0 are
// equal to json's operator== but serialize differently; so do 0.0 and -0.0).
bool identical(const nlohmann::json &a, const nlohmann::json &b);
// Compact serialization (invalid UTF-8 replaced, never throws): byte for byte what
// value.dump(-1, ' ', false, replace) writes, without its per-character escaping pass for the
// plain strings that make up most of an object.
QByteArray dump(const nlohmann::json &value);
// dump(), also telling where the serialization of `marked` (a node inside `value`, by address)
// starts and how many bytes it takes; *markedAt stays -1 when it is not reached.
QByteArray dump(const nlohmann::json &value,
                const nlohmann::json *marked,
                qsizetype *markedAt,
                qsizetype *markedLength);
// Parses stored object JSON, i.e. what dump() wrote: the same value json::parse(text, nullptr,
// false) gives (discarded when the text is not JSON), several times faster for compact,
// key-sorted text of strings, integers, booleans and nulls; any other text (whitespace, floats,
// long integers, \u escapes beyond ASCII, unsorted or duplicate keys) goes to nlohmann's parser.
nlohmann::json parseStored(QByteArrayView text);
// One member of a JSON object as members() finds it in the object's text.
struct MemberSpan
{
    QByteArrayView key; // between the quotes, escapes as written
    qsizetype valueAt = 0; // the value's text: object.sliced(valueAt, valueLength)
    qsizetype valueLength = 0;
};
// The members of compact object JSON as dump() writes it, in text order; false (and `out` left
// in any state) when `object` is not one compact JSON object: whitespace, a missing colon or
// comma, unbalanced brackets or trailing text. Values are delimited, not checked.
bool members(QByteArrayView object, std::vector<MemberSpan> &out);
// Pretty serialization with two-space indentation, as Go's json.MarshalIndent.
QByteArray dumpPretty(const nlohmann::json &value);
// The value of a simple field path such as ".spec.color" rendered as a field-selector value
// (strings as is, numbers and booleans in decimal/true/false); "" when absent.
QString fieldValue(const nlohmann::json &object, const QString &path);

// Go's encoding/json refuses input nested more than 10000 levels deep (scanner.go's
// maxNestingDepth); the bound also keeps every recursive walk of a parsed tree (dump, compare,
// schema) far from the end of the stack.
inline constexpr int maxJsonNesting = 10000;
// Go's error for JSON text nested deeper than maxJsonNesting ("invalid character '[' exceeded
// max depth"), or "" when it is not. Scans the text only; it need not be valid JSON.
QString nestingError(QByteArrayView text);

// `document` with the RFC 6902 JSON patch `patch` (an array of operation objects) applied, or
// nullopt when an operation does not apply. nlohmann's patch() throws for most of those, but an
// add or remove whose target sits under a string, number or boolean trips an assertion (and
// without assertions is silently skipped); json-patch, which kube-apiserver uses, refuses it
// ("doc is missing path"). Each operation is checked against the document as the ones before it
// left it.
std::optional<nlohmann::json> applyJsonPatch(const nlohmann::json &document,
                                             const nlohmann::json &patch);

} // namespace reconscope::controller::cluster::objectjson
