#include "controller/labs/patchtemplate.h"
#include "models/jsonsyntax.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

using apimachinery::PatchType;

QString targetName(PatchTarget target)
{
    return target == PatchTarget::Status ? u"/status"_s : u"main resource"_s;
}

QString patchTypeName(PatchType type)
{
    return type == PatchType::Json ? u"json"_s : u"merge"_s;
}

QByteArray patchContentType(PatchType type)
{
    return type == PatchType::Json ? "application/json-patch+json" : "application/merge-patch+json";
}

QString preconditionName(Precondition precondition)
{
    switch (precondition) {
    case Precondition::None:
        return u"none"_s;
    case Precondition::Current:
        return u"current resourceVersion"_s;
    case Precondition::Stale:
        return u"stale resourceVersion"_s;
    }
    return {};
}

// ---- validation ----

namespace {

QString describeType(const json &value)
{
    return QString::fromLatin1(value.type_name());
}

} // namespace

QString jsonPointerProblem(const QString &pointer)
{
    if (pointer.isEmpty())
        return {};
    if (!pointer.startsWith(u'/'))
        return u"must be empty or start with \"/\""_s;
    for (qsizetype i = 0; i < pointer.size(); ++i) {
        if (pointer[i] != u'~')
            continue;
        if (i + 1 >= pointer.size() || (pointer[i + 1] != u'0' && pointer[i + 1] != u'1'))
            return u"\"~\" must be followed by 0 or 1 (\"~0\" is \"~\", \"~1\" is \"/\")"_s;
    }
    return {};
}

PatchValidation validatePatch(const QString &text, PatchType type)
{
    PatchValidation v;
    const QByteArray utf8 = text.toUtf8();
    if (text.trimmed().isEmpty()) {
        v.message = type == PatchType::Merge ? u"empty: a merge patch is a JSON object"_s
                                             : u"empty: a JSON patch is an array of operations"_s;
        return v;
    }
    if (const auto check = models::findJsonSyntaxError(utf8)) {
        // The position is in bytes; the editor counts characters.
        const qsizetype bytes
            = std::clamp<qsizetype>(qsizetype(check->position) - 1, 0, utf8.size());
        const QString before = QString::fromUtf8(utf8.left(bytes));
        v.offset = before.size();
        v.line = int(before.count(u'\n')) + 1;
        v.column = int(before.size() - (before.lastIndexOf(u'\n') + 1)) + 1;
        // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5:
        // syntax error while parsing value - invalid literal; last read: '{x'"
        QString what = QString::fromStdString(check->what);
        const qsizetype colon = what.indexOf(u": "_s, what.indexOf(u"column"_s));
        if (colon >= 0)
            what = what.mid(colon + 2);
        v.message
            = u"JSON syntax error at line %1, column %2: %3"_s.arg(v.line).arg(v.column).arg(what);
        return v;
    }
    json parsed = json::parse(utf8.constData(), utf8.constData() + utf8.size(), nullptr, false);
    if (type == PatchType::Merge) {
        if (!parsed.is_object()) {
            v.message = u"a merge patch must be a JSON object (RFC 7386), not %1"_s.arg(
                describeType(parsed));
            return v;
        }
    } else {
        if (!parsed.is_array()) {
            v.message = u"a JSON patch must be an array of operations (RFC 6902), not %1"_s.arg(
                describeType(parsed));
            return v;
        }
        static const QStringList ops{ u"add"_s,  u"remove"_s, u"replace"_s,
                                      u"move"_s, u"copy"_s,   u"test"_s };
        for (std::size_t i = 0; i < parsed.size(); ++i) {
            const json &op = parsed[i];
            const QString where = u"operation %1"_s.arg(i + 1);
            if (!op.is_object()) {
                v.message = u"%1: must be an object, not %2"_s.arg(where, describeType(op));
                return v;
            }
            const auto opIt = op.find("op");
            if (opIt == op.end() || !opIt->is_string()) {
                v.message = u"%1: \"op\" is required (one of %2)"_s.arg(where, ops.join(u", "_s));
                return v;
            }
            const QString name = QString::fromStdString(opIt->get<std::string>());
            if (!ops.contains(name)) {
                v.message = u"%1: unknown op \"%2\" (want one of %3)"_s.arg(
                    where, name, ops.join(u", "_s));
                return v;
            }
            const auto pathIt = op.find("path");
            if (pathIt == op.end() || !pathIt->is_string()) {
                v.message = u"%1: \"path\" (a JSON pointer string) is required"_s.arg(where);
                return v;
            }
            const QString path = QString::fromStdString(pathIt->get<std::string>());
            if (const QString problem = jsonPointerProblem(path); !problem.isEmpty()) {
                v.message = u"%1: path \"%2\" %3"_s.arg(where, path, problem);
                return v;
            }
            if ((name == u"add" || name == u"replace" || name == u"test")
                && !op.contains("value")) {
                v.message = u"%1: \"value\" is required for \"%2\""_s.arg(where, name);
                return v;
            }
            if (name == u"move" || name == u"copy") {
                const auto fromIt = op.find("from");
                if (fromIt == op.end() || !fromIt->is_string()) {
                    v.message
                        = u"%1: \"from\" (a JSON pointer string) is required for \"%2\""_s.arg(
                            where, name);
                    return v;
                }
                const QString from = QString::fromStdString(fromIt->get<std::string>());
                if (const QString problem = jsonPointerProblem(from); !problem.isEmpty()) {
                    v.message = u"%1: from \"%2\" %3"_s.arg(where, from, problem);
                    return v;
                }
            }
        }
    }
    v.ok = true;
    v.patch = std::move(parsed);
    return v;
}

// ---- templates ----

QList<PatchTemplate> allTemplates()
{
    return { PatchTemplate::ManualOverride,
             PatchTemplate::SetDegraded,
             PatchTemplate::ClearConditions,
             PatchTemplate::BumpSpecField };
}

QString templateName(PatchTemplate t)
{
    switch (t) {
    case PatchTemplate::ManualOverride:
        return u"Manual override (Ready=False, ManualOverride)"_s;
    case PatchTemplate::SetDegraded:
        return u"Set Degraded"_s;
    case PatchTemplate::ClearConditions:
        return u"Clear conditions"_s;
    case PatchTemplate::BumpSpecField:
        return u"Bump a spec field"_s;
    }
    return {};
}

namespace {

json condition(const char *type,
               const char *status,
               const char *reason,
               const char *message,
               const std::string &time)
{
    return { { "type", type },
             { "status", status },
             { "reason", reason },
             { "message", message },
             { "lastTransitionTime", time } };
}

// The spec field to bump: spec.replicas, else the first number directly in spec.
std::optional<std::pair<std::string, json>> bumpedSpecField(const json &object)
{
    const auto spec = object.is_object() ? object.find("spec") : object.end();
    if (!object.is_object() || spec == object.end() || !spec->is_object())
        return std::nullopt;
    if (spec->contains("replicas") && (*spec)["replicas"].is_number_integer())
        return std::make_pair(std::string("replicas"), json((*spec)["replicas"].get<qint64>() + 1));
    for (const auto &[key, value] : spec->items()) {
        if (value.is_number_integer())
            return std::make_pair(key, json(value.get<qint64>() + 1));
    }
    return std::nullopt;
}

std::string escapePointerToken(const std::string &token)
{
    std::string out;
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

} // namespace

json makeTemplate(PatchTemplate t, PatchType type, const json &object, const QDateTime &now)
{
    const std::string time = now.toUTC().toString(u"yyyy-MM-ddTHH:mm:ssZ"_s).toStdString();
    json conditions = json::array();
    switch (t) {
    case PatchTemplate::ManualOverride:
        conditions.push_back(condition("Ready",
                                       "False",
                                       "ManualOverride",
                                       "Set to Unready by hand for troubleshooting",
                                       time));
        break;
    case PatchTemplate::SetDegraded:
        conditions.push_back(condition(
            "Ready", "False", "ManualDegraded", "Degraded by hand in the patch lab", time));
        conditions.push_back(condition(
            "Degraded", "True", "ManualDegraded", "Degraded by hand in the patch lab", time));
        break;
    case PatchTemplate::ClearConditions:
        break;
    case PatchTemplate::BumpSpecField: {
        const auto field = bumpedSpecField(object);
        const std::string key = field ? field->first : std::string("replicas");
        const json value = field ? field->second : json(1);
        if (type == PatchType::Merge)
            return { { "spec", { { key, value } } } };
        const bool hasSpec
            = object.is_object() && object.contains("spec") && object["spec"].is_object();
        if (!hasSpec)
            return json::array(
                { { { "op", "add" }, { "path", "/spec" }, { "value", { { key, value } } } } });
        return json::array({ { { "op", "add" },
                               { "path", "/spec/" + escapePointerToken(key) },
                               { "value", value } } });
    }
    }
    if (type == PatchType::Merge) // arrays are replaced whole: this sets the list
        return { { "status", { { "conditions", conditions } } } };
    const bool hasStatus
        = object.is_object() && object.contains("status") && object["status"].is_object();
    if (!hasStatus)
        return json::array({ { { "op", "add" },
                               { "path", "/status" },
                               { "value", { { "conditions", conditions } } } } });
    return json::array(
        { { { "op", "add" }, { "path", "/status/conditions" }, { "value", conditions } } });
}

json withResourceVersion(const json &patch, PatchType type, const QString &resourceVersion)
{
    if (resourceVersion.isEmpty())
        return patch;
    const std::string rv = resourceVersion.toStdString();
    if (type == PatchType::Merge) {
        json out = patch.is_object() ? patch : json::object();
        if (!out.contains("metadata") || !out["metadata"].is_object())
            out["metadata"] = json::object();
        out["metadata"]["resourceVersion"] = rv;
        return out;
    }
    json out = json::array(
        { { { "op", "replace" }, { "path", "/metadata/resourceVersion" }, { "value", rv } } });
    if (patch.is_array()) {
        for (const auto &op : patch)
            out.push_back(op);
    }
    return out;
}

QString staleResourceVersion(const QString &current)
{
    bool numeric = false;
    const qint64 value = current.toLongLong(&numeric);
    if (numeric && value > 1)
        return QString::number(value - 1);
    return current == u"1" ? u"2"_s : u"1"_s;
}

} // namespace reconscope::controller::labs
