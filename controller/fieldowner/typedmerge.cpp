#include "controller/fieldowner/typedvalue.h"

#include <QString>

#include <map>
#include <optional>

using json = nlohmann::json;

// The merge, removal and named-field walks of typedvalue.h (the comparison and field-set walks
// are in typedvalue.cpp).
namespace reconscope::controller::fieldowner {

namespace {

using Out = std::optional<json>;

enum class Shape { Scalar, List, Map, None };

Shape shapeOf(const TypeNode &type, const json *value)
{
    if (value) {
        if ((value->is_number() || value->is_string() || value->is_boolean()) && type.scalar)
            return Shape::Scalar;
        if (value->is_array() && type.list)
            return Shape::List;
        if (value->is_object() && type.map)
            return Shape::Map;
    }
    return type.map   ? Shape::Map
        : type.scalar ? Shape::Scalar
        : type.list   ? Shape::List
                      : Shape::None;
}

std::optional<PathElement> elementOf(const ListAtom &list, const json &item)
{
    if (list.relationship != Relationship::Associative)
        return std::nullopt;
    if (list.keys.empty()) {
        if (item.is_object() || item.is_array() || item.is_null())
            return std::nullopt;
        return PathElement::member(item);
    }
    if (!item.is_object())
        return std::nullopt;
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
    if (key.empty())
        return std::nullopt;
    return PathElement::key(std::move(key));
}

// One side of a list merge: its items' elements in order and each element's item (a null
// stand-in for an element that occurs more than once).
struct IndexedList
{
    std::vector<PathElement> elements;
    std::vector<const json *> items;
    std::map<PathElement, const json *> byElement;

    const json *find(const PathElement &e) const
    {
        auto it = byElement.find(e);
        return it == byElement.end() ? nullptr : it->second;
    }
    bool has(const PathElement &e) const { return byElement.count(e) != 0; }
};

struct MergeWalker
{
    Path path;
    QString error;
    const json duplicate; // stands for the items of a repeated element

    Out merge(const json *lhs, const json *rhs, const TypeRef &type)
    {
        if (!type) {
            fail(QStringLiteral("field not declared in schema"));
            return rhs ? Out(*rhs) : lhs ? Out(*lhs) : Out();
        }
        const Shape left = shapeOf(*type, lhs), right = shapeOf(*type, rhs);
        if (!rhs)
            return handle(left, lhs, rhs, *type);
        if (lhs && left != right)
            handle(left, lhs, rhs, *type); // upstream walks both shapes; the right one wins
        return handle(right, lhs, rhs, *type);
    }

    void fail(const QString &message)
    {
        if (error.isEmpty())
            error = (path.empty() ? QStringLiteral("the object")
                                  : QString::fromStdString(pathString(path)))
                + QStringLiteral(": ") + message;
    }

    static Out leaf(const json *lhs, const json *rhs)
    {
        return rhs ? Out(*rhs) : lhs ? Out(*lhs) : Out();
    }

    Out handle(Shape shape, const json *lhs, const json *rhs, const TypeNode &type)
    {
        switch (shape) {
        case Shape::List:
            return list(lhs, rhs, *type.list);
        case Shape::Map:
            return map(lhs, rhs, *type.map);
        default:
            return leaf(lhs, rhs);
        }
    }

    bool index(const json *list, const ListAtom &type, bool allowDuplicates, IndexedList &out)
    {
        if (!list)
            return true;
        for (const json &item : *list) {
            auto e = elementOf(type, item);
            if (!e) {
                fail(QStringLiteral("element %1 has no key in an associative list")
                         .arg(out.elements.size()));
                return false;
            }
            auto [it, inserted] = out.byElement.emplace(*e, &item);
            if (!inserted) {
                if (!allowDuplicates) {
                    fail(QStringLiteral("duplicate entries for key %1")
                             .arg(QString::fromStdString(e->toString())));
                    return false;
                }
                it->second = &duplicate;
            }
            out.elements.push_back(*e);
            out.items.push_back(&item);
        }
        return true;
    }

    void mergeItem(
        const PathElement &e, const json *lhs, const json *rhs, const ListAtom &type, json &out)
    {
        path.push_back(e);
        if (Out merged = merge(lhs, rhs, type.elementType))
            out.push_back(std::move(*merged));
        path.pop_back();
    }

    // visitListItems: the live order kept, the config's items placed where upstream places them.
    Out listItems(const json *l, const json *r, const ListAtom &type)
    {
        IndexedList left, right;
        if (!index(r, type, false, right) || !index(l, type, true, left))
            return std::nullopt;
        std::vector<PathElement> shared;
        for (const PathElement &e : right.elements) {
            if (left.has(e))
                shared.push_back(e);
        }
        std::size_t nextShared = 0;
        auto sharedDone = [&] {
            return nextShared >= shared.size();
        };
        std::map<PathElement, bool> mergedRight;
        json out = json::array();
        const std::size_t lLen = left.elements.size(), rLen = right.elements.size();
        for (std::size_t lI = 0, rI = 0; lI < lLen || rI < rLen;) {
            if (lI < lLen && rI < rLen) {
                const PathElement &e = left.elements[lI];
                if (e == right.elements[rI]) {
                    mergedRight[e] = true;
                    mergeItem(e, left.find(e), right.find(e), type, out);
                    ++lI, ++rI, ++nextShared;
                    continue;
                }
                if (right.has(e) && !sharedDone() && !(shared[nextShared] == e)) {
                    ++lI;
                    continue;
                }
            }
            if (lI < lLen) {
                const PathElement &e = left.elements[lI];
                if (!right.has(e)) {
                    mergeItem(e, left.items[lI], nullptr, type, out);
                    ++lI;
                    continue;
                }
                if (mergedRight.count(e))
                    ++lI;
            }
            if (rI < rLen) {
                const PathElement &e = right.elements[rI];
                mergedRight[e] = true;
                mergeItem(e, left.find(e), right.find(e), type, out);
                ++rI;
                if (!sharedDone() && shared[nextShared] == e)
                    ++nextShared;
            }
        }
        return out.empty() ? Out() : Out(std::move(out));
    }

    Out list(const json *lhs, const json *rhs, const ListAtom &type)
    {
        const json *l = lhs && lhs->is_array() ? lhs : nullptr;
        const json *r = rhs && rhs->is_array() ? rhs : nullptr;
        if (type.relationship == Relationship::Atomic || ((!l || l->empty()) && (!r || r->empty())))
            return leaf(lhs, rhs);
        if (!l && !r)
            return std::nullopt;
        return listItems(l, r, type);
    }

    Out map(const json *lhs, const json *rhs, const MapAtom &type)
    {
        const json *l = lhs && lhs->is_object() ? lhs : nullptr;
        const json *r = rhs && rhs->is_object() ? rhs : nullptr;
        if (type.relationship == Relationship::Atomic || ((!l || l->empty()) && (!r || r->empty())))
            return leaf(lhs, rhs);
        if (!l && !r)
            return std::nullopt;
        json out = json::object();
        auto visit = [&](const std::string &key) {
            const json *a = nullptr, *b = nullptr;
            if (l) {
                if (auto it = l->find(key); it != l->end())
                    a = &*it;
            }
            if (r) {
                if (auto it = r->find(key); it != r->end())
                    b = &*it;
            }
            path.push_back(PathElement::field(key));
            if (Out merged = merge(a, b, type.typeOf(key)))
                out[key] = std::move(*merged);
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
        return out.empty() ? Out() : Out(std::move(out));
    }
};

json removeFrom(const json &value, const FieldSet &remove, const TypeRef &type)
{
    if (!type)
        return value;
    switch (shapeOf(*type, &value)) {
    case Shape::Scalar:
        return value;
    case Shape::List: {
        const ListAtom &list = *type->list;
        if (!value.is_array() || value.empty() || list.relationship == Relationship::Atomic)
            return nullptr;
        json out = json::array();
        for (const json &item : value) {
            const auto e = elementOf(list, item);
            if (e && remove.hasMember(*e))
                continue;
            static const FieldSet none;
            const FieldSet &below = e ? remove.withPrefix(*e) : none;
            out.push_back(below.empty() ? item : removeFrom(item, below, list.elementType));
        }
        return out.empty() ? json() : out;
    }
    case Shape::Map: {
        const MapAtom &map = *type->map;
        if (!value.is_object() || value.empty() || map.relationship == Relationship::Atomic)
            return nullptr;
        json out = json::object();
        for (const auto &[key, member] : value.items()) {
            const PathElement e = PathElement::field(key);
            if (remove.hasMember(e))
                continue;
            const FieldSet &below = remove.withPrefix(e);
            out[key] = below.empty() ? member : removeFrom(member, below, map.typeOf(key));
        }
        return out.empty() ? json() : out;
    }
    case Shape::None:
        return value;
    }
    return value;
}

// Collapses what was recorded below nodes the schema now declares atomic.
struct SchemaReconciler
{
    FieldSet toRemove, toAdd;
    Path path;

    static bool deducedMap(const MapAtom &map)
    {
        const TypeRef &element = map.elementType;
        return map.fields.empty() && element
            && (element == types::deduced()
                || (element->scalar && element->scalarKind == ScalarKind::Untyped));
    }

    void collapse()
    {
        toRemove.insert(path);
        toAdd.insert(path);
    }

    void visit(const FieldSet *set, const TypeRef &type, bool atomicMember)
    {
        if (!type)
            return;
        if (type->map) {
            const MapAtom &map = *type->map;
            if (deducedMap(map))
                return;
            if (!atomicMember && map.relationship == Relationship::Atomic) {
                if (set && !set->empty())
                    collapse();
                return;
            }
            if (set)
                items(*set, [&](const PathElement &e) {
                    return e.kind == PathElement::Kind::Field ? map.typeOf(e.name)
                                                              : map.elementType;
                });
        } else if (type->list && !type->scalar) {
            const ListAtom &list = *type->list;
            if (!atomicMember && list.relationship == Relationship::Atomic) {
                collapse();
                return;
            }
            if (set)
                items(*set, [&](const PathElement &) { return list.elementType; });
        }
    }

    template<typename TypeOf>
    void items(const FieldSet &set, TypeOf typeOf)
    {
        auto handle = [&](const PathElement &e, bool member) {
            const TypeRef type = typeOf(e);
            if (!type)
                return; // not in the schema: left as it is
            const FieldSet &below = set.withPrefix(e);
            path.push_back(e);
            visit(below.empty() ? nullptr : &below, type, member && below.empty());
            path.pop_back();
        };
        for (const FieldSet::Child &child : set.children()) {
            if (!set.hasMember(child.element))
                handle(child.element, false);
        }
        for (const PathElement &member : set.members())
            handle(member, true);
    }
};

} // namespace

FieldSet reconcileWithSchema(const FieldSet &set, const TypeRef &type)
{
    SchemaReconciler reconciler;
    reconciler.visit(&set, type, false);
    if (reconciler.toRemove.empty() && reconciler.toAdd.empty())
        return set;
    return set.recursiveDifference(reconciler.toRemove).unite(reconciler.toAdd);
}

models::Result<json> mergeTyped(const json &live, const json &config, const TypeRef &type)
{
    MergeWalker walker;
    Out merged = walker.merge(&live, &config, type);
    if (!walker.error.isEmpty())
        return models::Result<json>::failure(walker.error);
    return merged ? std::move(*merged) : json();
}

json removeItems(const json &value, const FieldSet &remove, const TypeRef &type)
{
    return removeFrom(value, remove, type);
}

FieldSet ensureNamedFieldsAreMembers(const FieldSet &set, const TypeRef &type)
{
    FieldSet out;
    for (const PathElement &member : set.members())
        out.insertMember(member);
    const MapAtom *map = type && type->map ? &*type->map : nullptr;
    const ListAtom *list = type && type->list ? &*type->list : nullptr;
    for (const FieldSet::Child &child : set.children()) {
        TypeRef childType;
        if (child.element.kind == PathElement::Kind::Field && map) {
            if (map->isField(child.element.name))
                out.insertMember(child.element);
            childType = map->typeOf(child.element.name);
        } else if (child.element.kind == PathElement::Kind::Key && list) {
            childType = list->elementType;
        }
        out.descend(child.element) = ensureNamedFieldsAreMembers(child.set, childType);
    }
    return out;
}

} // namespace reconscope::controller::fieldowner
