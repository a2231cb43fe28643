#include "controller/cluster/registry/podspecdiff.h"

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/registry/internaltypes.h"
#include "controller/cluster/schema/gofmt.h"
#include "models/jsonfields.h"
#include "models/unifieddiff.h"

#include <array>
#include <string_view>
#include <utility>

using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

// PodSecurityContext's fields that v1 keeps in the PodSpec.
constexpr std::array<std::pair<std::string_view, const char *>, 5> kHostFields
    = { { { "HostNetwork", "hostNetwork" },
          { "HostPID", "hostPID" },
          { "HostIPC", "hostIPC" },
          { "ShareProcessNamespace", "shareProcessNamespace" },
          { "HostUsers", "hostUsers" } } };

using models::jsonFind;

// json.MarshalIndent with prefix "" and indent " " of internal values converted from v1 JSON.
// `semantic`: nil and empty lists and maps alike and quantities canonical, so that two texts
// are equal when the values are Semantic.DeepEqual.
class Renderer
{
public:
    Renderer(const json &spec, bool semantic)
        : m_spec(spec)
        , m_semantic(semantic)
    { }

    std::string take() { return std::move(m_out); }

    void render(const json *v, std::string_view type, int depth)
    {
        const bool null = !v || v->is_null();
        if (type.starts_with('*')) {
            if (null)
                m_out += "null";
            else
                render(v, type.substr(1), depth);
            return;
        }
        if (type == "[]byte") {
            m_out += null ? std::string("null") : marshal(*v);
            return;
        }
        if (type.starts_with("[]")) {
            renderList(null ? nullptr : v, type.substr(2), depth);
            return;
        }
        if (type.starts_with("map[")) {
            renderMap(null ? nullptr : v, type.substr(type.find(']') + 1), depth);
            return;
        }
        if (const InternalStruct *s = internalStruct(type)) {
            static const json empty = json::object();
            renderStruct(null || !v->is_object() ? empty : *v, *s, depth);
            return;
        }
        renderScalar(null ? nullptr : v, type, depth);
    }

private:
    static std::string marshal(const json &value)
    {
        return cluster::gofmt::marshal(value).toStdString();
    }

    void newline(int depth)
    {
        m_out += '\n';
        m_out.append(std::size_t(depth), ' ');
    }

    void renderList(const json *v, std::string_view element, int depth)
    {
        if (!v || !v->is_array() || v->empty()) {
            m_out += v && v->is_array() && !m_semantic ? "[]" : "null";
            return;
        }
        m_out += '[';
        bool first = true;
        for (const json &item : *v) {
            if (!first)
                m_out += ',';
            first = false;
            newline(depth + 1);
            render(&item, element, depth + 1);
        }
        newline(depth);
        m_out += ']';
    }

    void renderMap(const json *v, std::string_view element, int depth)
    {
        if (!v || !v->is_object() || v->empty()) {
            m_out += v && v->is_object() && !m_semantic ? "{}" : "null";
            return;
        }
        m_out += '{';
        bool first = true;
        for (auto it = v->begin(); it != v->end(); ++it) {
            if (!first)
                m_out += ',';
            first = false;
            newline(depth + 1);
            m_out += marshal(json(it.key())) + ": ";
            render(&*it, element, depth + 1);
        }
        newline(depth);
        m_out += '}';
    }

    void renderStruct(const json &object, const InternalStruct &s, int depth)
    {
        m_out += '{';
        bool first = true;
        renderFields(object, s, depth + 1, first);
        if (!first)
            newline(depth);
        m_out += '}';
    }

    void renderFields(const json &object, const InternalStruct &s, int depth, bool &first)
    {
        for (std::size_t i = 0; i < s.count; ++i) {
            const InternalField &field = s.fields[i];
            std::string_view type = field.type;
            if (type.starts_with("inline ")) {
                type.remove_prefix(7);
                if (const InternalStruct *embedded = internalStruct(type)) {
                    renderFields(object, *embedded, depth, first);
                } else if (const json *meta = jsonFind(object, field.jsonName)) {
                    renderMembers(*meta, depth, first); // metav1.ObjectMeta, tags as v1 names
                }
                continue;
            }
            const json *member = nullptr;
            if (field.jsonName) {
                member = jsonFind(object, field.jsonName);
            } else {
                for (const auto &[goName, v1Name] : kHostFields) {
                    if (goName == field.goName)
                        member = jsonFind(m_spec, v1Name);
                }
            }
            if (!first)
                m_out += ',';
            first = false;
            newline(depth);
            m_out += '"';
            m_out += field.goName;
            m_out += "\": ";
            render(member, type, depth);
        }
    }

    // A value of a type with JSON tags (ObjectMeta): its members as they are, omitted when empty.
    void renderMembers(const json &object, int depth, bool &first)
    {
        if (!object.is_object())
            return;
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (it->is_null() || (it->is_structured() && it->empty()))
                continue;
            if (!first)
                m_out += ',';
            first = false;
            newline(depth);
            m_out += marshal(json(it.key())) + ": ";
            renderGeneric(*it, depth);
        }
    }

    void renderGeneric(const json &v, int depth)
    {
        if (v.is_object() && !v.empty()) {
            m_out += '{';
            bool first = true;
            renderMembers(v, depth + 1, first);
            newline(depth);
            m_out += '}';
        } else if (v.is_array() && !v.empty()) {
            renderList(&v, "any", depth);
        } else {
            m_out += marshal(v);
        }
    }

    // metav1.LabelSelector: matchLabels then matchExpressions (key, operator, values), each
    // omitted when empty.
    void renderSelector(const json &selector, int depth)
    {
        m_out += '{';
        bool first = true;
        const auto key = [&](const char *name, int at) {
            if (!first)
                m_out += ',';
            first = false;
            newline(at);
            m_out += '"';
            m_out += name;
            m_out += "\": ";
        };
        if (const json *labels = jsonFind(selector, "matchLabels"); labels && !labels->empty()) {
            key("matchLabels", depth + 1);
            renderMap(labels, "string", depth + 1);
        }
        const json *expressions = jsonFind(selector, "matchExpressions");
        if (expressions && expressions->is_array() && !expressions->empty()) {
            key("matchExpressions", depth + 1);
            m_out += '[';
            for (std::size_t i = 0; i < expressions->size(); ++i) {
                const json &e = (*expressions)[i];
                m_out += i ? "," : "";
                newline(depth + 2);
                m_out += '{';
                bool inner = true;
                std::swap(first, inner);
                for (const char *name : { "key", "operator" }) {
                    key(name, depth + 3);
                    render(jsonFind(e, name), "string", depth + 3);
                }
                if (const json *values = jsonFind(e, "values"); values && !values->empty()) {
                    key("values", depth + 3);
                    renderList(values, "string", depth + 3);
                }
                std::swap(first, inner);
                newline(depth + 2);
                m_out += '}';
            }
            newline(depth + 1);
            m_out += ']';
        }
        if (!first)
            newline(depth);
        m_out += '}';
    }

    void renderScalar(const json *v, std::string_view type, int depth)
    {
        if (type == "string") {
            m_out += v ? marshal(*v) : std::string("\"\"");
        } else if (type == "bool") {
            m_out += v && v->is_boolean() && v->get<bool>() ? "true" : "false";
        } else if (type == "Quantity") {
            const auto q = v ? apimachinery::Quantity::fromJson(*v) : std::nullopt;
            const QString text = !q ? QStringLiteral("0")
                : m_semantic        ? q->canonical()
                                    : q->toString();
            m_out += marshal(json(text.toStdString()));
        } else if (type == "IntOrString") {
            m_out += v ? marshal(*v) : std::string("0");
        } else if (type == "Time") {
            m_out += v ? marshal(*v) : std::string("null");
        } else if (type == "Duration") {
            m_out += v ? marshal(*v) : std::string("\"0s\"");
        } else if (type == "LabelSelector") {
            if (v && v->is_object())
                renderSelector(*v, depth);
            else
                m_out += "{}";
        } else if (type == "any") {
            if (v)
                renderGeneric(*v, depth);
            else
                m_out += "null";
        } else { // the integer and float types
            m_out += v && v->is_number() ? v->dump() : std::string("0");
        }
    }

    const json &m_spec;
    const bool m_semantic;
    std::string m_out;
};

std::string render(const json &spec, bool semantic)
{
    // Convert_v1_PodSpec_To_core_PodSpec: host fields make a security context.
    json converted = spec.is_object() ? spec : json::object();
    bool host = false;
    for (const auto &[goName, v1Name] : kHostFields) {
        const json *value = jsonFind(converted, v1Name);
        host = host || (value && !value->is_null() && *value != false);
    }
    if (host && (!converted.contains("securityContext") || converted["securityContext"].is_null()))
        converted["securityContext"] = json::object();
    if (jsonFind(converted, "serviceAccountName") == nullptr
        || converted["serviceAccountName"] == "") {
        if (const json *deprecated = jsonFind(converted, "serviceAccount"))
            converted["serviceAccountName"] = *deprecated;
    }
    Renderer renderer(converted, semantic);
    renderer.render(&converted, "PodSpec", 0);
    return renderer.take();
}

} // namespace

std::string internalPodSpecJson(const json &spec)
{
    return render(spec, false);
}

bool podSpecsSemanticallyEqual(const json &a, const json &b)
{
    return render(a, true) == render(b, true);
}

std::string podSpecDiff(const json &old, const json &updated)
{
    return models::unifiedDiff(internalPodSpecJson(old), internalPodSpecJson(updated));
}

} // namespace reconscope::controller::cluster
