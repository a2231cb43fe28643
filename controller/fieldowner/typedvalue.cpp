#include "controller/fieldowner/typedvalue.h"

#include "controller/fieldowner/gotext.h"

#include <QString>

#include <map>
#include <optional>
#include <set>

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

namespace {

enum class Atom { Scalar, List, Map, None };

// Which of the node's shapes applies to `value` (deduceAtom): the one matching the value, else
// the first the node has in upstream's order (map, scalar, list).
Atom atomOf(const TypeNode &type, const json *value)
{
    if (value) {
        if ((value->is_number() || value->is_string() || value->is_boolean()) && type.scalar)
            return Atom::Scalar;
        if (value->is_array() && type.list)
            return Atom::List;
        if (value->is_object() && type.map)
            return Atom::Map;
    }
    if (type.map)
        return Atom::Map;
    if (type.scalar)
        return Atom::Scalar;
    return type.list ? Atom::List : Atom::None;
}

// Go's %T of a decoded JSON value.
std::string goType(const json &value)
{
    switch (value.type()) {
    case json::value_t::string:
        return "string";
    case json::value_t::boolean:
        return "bool";
    case json::value_t::number_float:
        return "float64";
    case json::value_t::array:
        return "[]interface {}";
    case json::value_t::object:
        return "map[string]interface {}";
    default:
        return value.is_number() ? "int64" : "<nil>";
    }
}

// Go's %v (`sharp`: %#v) of a decoded JSON value.
std::string goValue(const json &value, bool sharp)
{
    switch (value.type()) {
    case json::value_t::string:
        return sharp ? gotext::quote(value.get<std::string>()) : value.get<std::string>();
    case json::value_t::number_float:
        return gotext::floatV(value.get<double>());
    case json::value_t::array: {
        std::string out = sharp ? "[]interface {}{" : "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            out += (i ? (sharp ? ", " : " ") : "") + goValue(value[i], sharp);
        return out + (sharp ? "}" : "]");
    }
    case json::value_t::object: {
        std::string out = sharp ? "map[string]interface {}{" : "map[";
        bool first = true;
        for (const auto &[key, member] : value.items()) {
            out += (first ? "" : (sharp ? ", " : " ")) + (sharp ? gotext::quote(key) : key) + ":"
                + goValue(member, sharp);
            first = false;
        }
        return out + (sharp ? "}" : "]");
    }
    case json::value_t::null:
        return "<nil>";
    default:
        return value.dump();
    }
}

// What structured-merge-diff's validation says of a value of the wrong shape or scalar kind
// (the %v of its value.Value wrapper included); nothing when the value fits.
std::optional<QString> mismatch(Atom atom, const TypeNode &type, const json &value)
{
    if (value.is_null())
        return std::nullopt;
    const std::string v = "&{" + goValue(value, false) + "}";
    std::string message;
    if (atom == Atom::List && !value.is_array())
        message = "expected list, got " + v;
    else if (atom == Atom::Map && !value.is_object())
        message = "expected map, got " + v;
    else if (atom == Atom::Scalar) {
        switch (type.scalarKind) {
        case ScalarKind::Numeric:
            if (!value.is_number())
                message = "expected numeric (int or float), got " + goType(value);
            break;
        case ScalarKind::String:
            if (!value.is_string())
                message = "expected string, got &value.valueUnstructured{Value:"
                    + goValue(value, true) + "}";
            break;
        case ScalarKind::Boolean:
            if (!value.is_boolean())
                message = "expected boolean, got " + v;
            break;
        case ScalarKind::Untyped:
            if (!value.is_primitive())
                message = "expected any scalar, got " + v;
            break;
        }
    }
    return message.empty() ? std::nullopt : std::optional(QString::fromStdString(message));
}

QString where(const Path &path)
{
    return path.empty() ? QStringLiteral("the object") : QString::fromStdString(pathString(path));
}

// The path element of a list item (listItemToPathElement); an error message when it has none.
std::optional<PathElement> itemElement(const ListAtom &list, const json &item, QString *error)
{
    if (list.relationship != Relationship::Associative) {
        *error = QStringLiteral("invalid indexing of non-associative list");
        return std::nullopt;
    }
    if (list.keys.empty()) {
        if (item.is_object() || item.is_array() || item.is_null()) {
            *error = QStringLiteral("a set holds only scalars, not %1")
                         .arg(QString::fromUtf8(item.type_name()));
            return std::nullopt;
        }
        return PathElement::member(item);
    }
    if (!item.is_object()) {
        *error = item.is_null()
            ? QStringLiteral("associative list with keys may not have a null element")
            : QStringLiteral("associative list with keys may not have non-map elements");
        return std::nullopt;
    }
    json key = json::object();
    const MapAtom *itemMap
        = list.elementType && list.elementType->map ? &*list.elementType->map : nullptr;
    for (const std::string &name : list.keys) {
        if (auto it = item.find(name); it != item.end())
            key[name] = *it;
        else if (const StructField *f = itemMap ? itemMap->field(name) : nullptr;
                 f && f->defaultValue)
            key[name] = *f->defaultValue;
    }
    if (key.empty()) {
        *error
            = QStringLiteral("associative list with keys has an element that omits all key fields");
        return std::nullopt;
    }
    return PathElement::key(std::move(key));
}

struct FieldSetWalker
{
    bool strict = false;
    FieldSet set;
    Path path;
    QString error;

    void fail(const QString &message)
    {
        if (error.isEmpty())
            error = where(path) + QStringLiteral(": ") + message;
    }

    void walk(const json &value, const TypeRef &type)
    {
        if (!type) {
            fail(QStringLiteral("field not declared in schema"));
            return;
        }
        const Atom atom = atomOf(*type, &value);
        if (strict) {
            if (auto message = mismatch(atom, *type, value))
                fail(*message);
        }
        switch (atom) {
        case Atom::Scalar:
            set.insert(path);
            break;
        case Atom::List:
            walkList(value, *type->list);
            break;
        case Atom::Map:
            walkMap(value, *type->map);
            break;
        case Atom::None:
            fail(QStringLiteral("schema error: invalid atom"));
            break;
        }
    }

    void walkList(const json &value, const ListAtom &list)
    {
        if (list.relationship == Relationship::Atomic) {
            set.insert(path);
            return;
        }
        if (!value.is_array())
            return;
        std::vector<std::optional<PathElement>> elements;
        std::set<PathElement> seen, duplicates;
        for (const json &item : value) {
            QString message;
            elements.push_back(itemElement(list, item, &message));
            if (!elements.back()) {
                fail(message);
                continue;
            }
            const PathElement &e = *elements.back();
            if (seen.insert(e).second)
                continue;
            if (duplicates.insert(e).second) {
                if (strict)
                    fail(QStringLiteral("duplicate entries for key %1")
                             .arg(QString::fromStdString(e.toString())));
                path.push_back(e);
                set.insert(path);
                path.pop_back();
            }
        }
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (!elements[i] || duplicates.count(*elements[i]))
                continue;
            path.push_back(*elements[i]);
            walk(value[i], list.elementType);
            set.insert(path);
            path.pop_back();
        }
    }

    void walkMap(const json &value, const MapAtom &map)
    {
        if (map.relationship == Relationship::Atomic) {
            set.insert(path);
            return;
        }
        if (!value.is_object())
            return;
        for (const auto &[key, member] : value.items()) {
            path.push_back(PathElement::field(key));
            walk(member, map.typeOf(key));
            if (member.is_null() || (member.is_object() && member.empty()) || !map.isField(key))
                set.insert(path);
            path.pop_back();
        }
    }
};

struct CompareWalker
{
    Comparison result;
    Path path;
    QString error;

    // Returns whether the node was compared as a leaf.
    bool compare(const json *lhs, const json *rhs, const TypeRef &type)
    {
        if (!type) {
            if (error.isEmpty())
                error = where(path) + QStringLiteral(": field not declared in schema");
            return true;
        }
        const Atom left = atomOf(*type, lhs), right = atomOf(*type, rhs);
        bool leaf = false;
        if (!rhs)
            leaf = handle(left, lhs, rhs, *type);
        else if (!lhs || left == right)
            leaf = handle(right, lhs, rhs, *type);
        else {
            handle(left, lhs, rhs, *type);
            leaf = handle(right, lhs, rhs, *type);
        }
        if (!leaf) {
            if (!lhs)
                result.added.insert(path);
            else if (!rhs)
                result.removed.insert(path);
        }
        return leaf;
    }

    bool leaf(const json *lhs, const json *rhs)
    {
        if (!lhs)
            result.added.insert(path);
        else if (!rhs)
            result.removed.insert(path);
        else if (*lhs != *rhs)
            result.modified.insert(path);
        return true;
    }

    bool handle(Atom atom, const json *lhs, const json *rhs, const TypeNode &type)
    {
        switch (atom) {
        case Atom::Scalar:
            return leaf(lhs, rhs);
        case Atom::List:
            return list(lhs, rhs, *type.list);
        case Atom::Map:
            return map(lhs, rhs, *type.map);
        case Atom::None:
            return leaf(lhs, rhs);
        }
        return true;
    }

    static const json *as(const json *value, bool (json::*is)() const noexcept)
    {
        return value && ((*value).*is)() ? value : nullptr;
    }

    bool list(const json *lhs, const json *rhs, const ListAtom &type)
    {
        const json *l = as(lhs, &json::is_array), *r = as(rhs, &json::is_array);
        if (type.relationship == Relationship::Atomic || ((!l || l->empty()) && (!r || r->empty())))
            return leaf(lhs, rhs);
        if (!l && !r)
            return false;
        // Items by element, each side's duplicates together, in order of first appearance.
        std::vector<PathElement> order;
        std::map<PathElement, std::size_t> positions;
        std::vector<std::pair<std::vector<const json *>, std::vector<const json *>>> items;
        auto index = [&](const json *side, bool left) {
            if (!side)
                return;
            for (const json &item : *side) {
                QString message;
                auto e = itemElement(type, item, &message);
                if (!e) {
                    if (error.isEmpty())
                        error = where(path) + QStringLiteral(": ") + message;
                    continue;
                }
                auto [it, added] = positions.emplace(*e, order.size());
                if (added) {
                    order.push_back(*e);
                    items.emplace_back();
                }
                auto &slot = items[it->second];
                (left ? slot.first : slot.second).push_back(&item);
            }
        };
        index(l, true);
        index(r, false);
        for (std::size_t i = 0; i < order.size(); ++i)
            compareItems(order[i], items[i].first, items[i].second, type);
        return false;
    }

    void compareItems(const PathElement &e,
                      const std::vector<const json *> &left,
                      const std::vector<const json *> &right,
                      const ListAtom &type)
    {
        path.push_back(e);
        if (left.size() <= 1 && right.size() <= 1) {
            compare(left.empty() ? nullptr : left[0],
                    right.empty() ? nullptr : right[0],
                    type.elementType);
        } else if (left.size() >= 2 && right.size() >= 2) {
            bool same = left.size() == right.size();
            for (std::size_t k = 0; same && k < left.size(); ++k)
                same = *left[k] == *right[k];
            if (!same)
                result.modified.insert(path);
        } else if (left.size() >= 2) {
            if (!right.empty())
                compare(nullptr, right[0], type.elementType);
            result.removed.insert(path);
        } else {
            if (!left.empty())
                compare(left[0], nullptr, type.elementType);
            result.added.insert(path);
        }
        path.pop_back();
    }

    bool map(const json *lhs, const json *rhs, const MapAtom &type)
    {
        const json *l = as(lhs, &json::is_object), *r = as(rhs, &json::is_object);
        if (type.relationship == Relationship::Atomic || ((!l || l->empty()) && (!r || r->empty())))
            return leaf(lhs, rhs);
        if (!l && !r)
            return false;
        auto visit = [&](const std::string &key) {
            const json *a = l ? findMember(*l, key) : nullptr;
            const json *b = r ? findMember(*r, key) : nullptr;
            path.push_back(PathElement::field(key));
            compare(a, b, type.typeOf(key));
            path.pop_back();
        };
        if (l) {
            for (const auto &[key, value] : l->items())
                visit(key);
        }
        if (r) {
            for (const auto &[key, value] : r->items()) {
                if (!l || !l->contains(key))
                    visit(key);
            }
        }
        return false;
    }

    static const json *findMember(const json &object, const std::string &key)
    {
        auto it = object.find(key);
        return it == object.end() ? nullptr : &*it;
    }
};

} // namespace

models::Result<FieldSet> fieldSetOf(const json &value, const TypeRef &type, bool strict)
{
    FieldSetWalker walker;
    walker.strict = strict;
    walker.walk(value, type);
    if (strict && !walker.error.isEmpty())
        return models::Result<FieldSet>::failure(walker.error);
    return std::move(walker.set);
}

models::Result<Comparison> compareTyped(const json &before, const json &after, const TypeRef &type)
{
    CompareWalker walker;
    walker.compare(&before, &after, type);
    if (!walker.error.isEmpty())
        return models::Result<Comparison>::failure(walker.error);
    return std::move(walker.result);
}

} // namespace reconscope::controller::fieldowner
