#include "controller/fieldowner/fieldpath.h"

#include "controller/fieldowner/gotext.h"

#include <algorithm>

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

namespace {

int sign(long long value)
{
    return value < 0 ? -1 : value > 0 ? 1 : 0;
}

int compareDoubles(double a, double b)
{
    return a < b ? -1 : a > b ? 1 : 0;
}

// The rank of a value's kind in structured-merge-diff's order; numbers share one.
int kindRank(const json &value)
{
    if (value.is_number())
        return 0;
    if (value.is_string())
        return 1;
    if (value.is_boolean())
        return 2;
    if (value.is_array())
        return 3;
    if (value.is_object())
        return 4;
    return 5; // null
}

int compareNumbers(const json &a, const json &b)
{
    if (a.is_number_float() || b.is_number_float())
        return compareDoubles(a.get<double>(), b.get<double>());
    if (a.is_number_unsigned() && b.is_number_unsigned())
        return a.get<unsigned long long>() < b.get<unsigned long long>() ? -1
            : a.get<unsigned long long>() > b.get<unsigned long long>()  ? 1
                                                                         : 0;
    const long long x = a.get<long long>(), y = b.get<long long>();
    return x < y ? -1 : x > y ? 1 : 0;
}

std::string valueString(const json &value)
{
    if (value.is_null())
        return "null";
    if (value.is_string())
        return gotext::quote(value.get_ref<const std::string &>());
    if (value.is_number_float())
        return gotext::floatV(value.get<double>());
    if (value.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            out += (i ? "," : "") + valueString(value[i]);
        return out + "]";
    }
    if (value.is_object()) {
        std::string out;
        for (const auto &[key, member] : value.items())
            out += key + "=" + valueString(member);
        return out;
    }
    return value.dump(); // integers and booleans
}

template<typename Element, typename Key>
auto lowerBound(std::vector<Element> &items, const PathElement &element, Key key)
{
    return std::lower_bound(items.begin(),
                            items.end(),
                            element,
                            [&](const Element &a, const PathElement &b) { return key(a) < b; });
}

} // namespace

PathElement PathElement::field(std::string name)
{
    PathElement e;
    e.name = std::move(name);
    return e;
}

PathElement PathElement::key(json keyFields)
{
    PathElement e;
    e.kind = Kind::Key;
    e.value = std::move(keyFields);
    return e;
}

PathElement PathElement::member(json value)
{
    PathElement e;
    e.kind = Kind::Value;
    e.value = std::move(value);
    return e;
}

PathElement PathElement::at(long long index)
{
    PathElement e;
    e.kind = Kind::Index;
    e.index = index;
    return e;
}

int PathElement::compare(const PathElement &other) const
{
    if (kind != other.kind)
        return kind < other.kind ? -1 : 1;
    switch (kind) {
    case Kind::Field:
        return sign(name.compare(other.name));
    case Kind::Key: {
        // Key fields sorted by name, then compared pairwise; a shorter list first.
        auto a = value.items().begin(), b = other.value.items().begin();
        for (;; ++a, ++b) {
            const bool aEnd = a == value.items().end(), bEnd = b == other.value.items().end();
            if (aEnd || bEnd)
                return aEnd && bEnd ? 0 : aEnd ? -1 : 1;
            if (int c = sign(a.key().compare(b.key())))
                return c;
            if (int c = compareValues(a.value(), b.value()))
                return c;
        }
    }
    case Kind::Value:
        return compareValues(value, other.value);
    case Kind::Index:
        return sign(index - other.index);
    }
    return 0;
}

std::string PathElement::toString() const
{
    switch (kind) {
    case Kind::Field:
        return "." + name;
    case Kind::Key: {
        std::string out = "[";
        bool first = true;
        for (const auto &[field, fieldValue] : value.items()) {
            out += (first ? "" : ",") + field + "=" + valueString(fieldValue);
            first = false;
        }
        return out + "]";
    }
    case Kind::Value:
        return "[=" + valueString(value) + "]";
    case Kind::Index:
        return "[" + std::to_string(index) + "]";
    }
    return "{{invalid path element}}";
}

std::string pathString(const Path &path)
{
    std::string out;
    for (const PathElement &element : path)
        out += element.toString();
    return out;
}

int compareValues(const json &a, const json &b)
{
    const int ra = kindRank(a), rb = kindRank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    switch (ra) {
    case 0:
        return compareNumbers(a, b);
    case 1:
        return sign(a.get_ref<const std::string &>().compare(b.get_ref<const std::string &>()));
    case 2:
        return a.get<bool>() == b.get<bool>() ? 0 : a.get<bool>() ? 1 : -1;
    case 3:
        for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
            if (int c = compareValues(a[i], b[i]))
                return c;
        }
        return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
    case 4: {
        auto x = a.items().begin(), y = b.items().begin();
        for (; x != a.items().end() && y != b.items().end(); ++x, ++y) {
            if (int c = sign(x.key().compare(y.key())))
                return c;
            if (int c = compareValues(x.value(), y.value()))
                return c;
        }
        return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
    }
    }
    return 0;
}

bool FieldSet::empty() const
{
    return m_members.empty() && m_children.empty();
}

bool FieldSet::hasMember(const PathElement &element) const
{
    return std::binary_search(m_members.begin(), m_members.end(), element);
}

bool FieldSet::has(const Path &path) const
{
    const FieldSet *set = this;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i + 1 == path.size())
            return set->hasMember(path[i]);
        set = &set->withPrefix(path[i]);
    }
    return false; // no one owns the whole object
}

const FieldSet &FieldSet::withPrefix(const PathElement &element) const
{
    static const FieldSet none;
    auto it = std::lower_bound(m_children.begin(),
                               m_children.end(),
                               element,
                               [](const Child &c, const PathElement &e) { return c.element < e; });
    return it != m_children.end() && it->element == element ? it->set : none;
}

void FieldSet::insertMember(const PathElement &element)
{
    auto it = std::lower_bound(m_members.begin(), m_members.end(), element);
    if (it == m_members.end() || !(*it == element))
        m_members.insert(it, element);
}

FieldSet &FieldSet::descend(const PathElement &element)
{
    auto it = lowerBound(
        m_children, element, [](const Child &c) -> const PathElement & { return c.element; });
    if (it == m_children.end() || !(it->element == element))
        it = m_children.insert(it, Child{ element, FieldSet() });
    return it->set;
}

void FieldSet::insert(const Path &path)
{
    if (path.empty())
        return;
    FieldSet *set = this;
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
        set = &set->descend(path[i]);
    set->insertMember(path.back());
}

void FieldSet::dropEmptyChildren()
{
    std::erase_if(m_children, [](const Child &c) { return c.set.empty(); });
}

FieldSet FieldSet::unite(const FieldSet &other) const
{
    FieldSet out;
    std::set_union(m_members.begin(),
                   m_members.end(),
                   other.m_members.begin(),
                   other.m_members.end(),
                   std::back_inserter(out.m_members));
    auto a = m_children.begin(), b = other.m_children.begin();
    while (a != m_children.end() || b != other.m_children.end()) {
        if (b == other.m_children.end() || (a != m_children.end() && a->element < b->element))
            out.m_children.push_back(*a++);
        else if (a == m_children.end() || b->element < a->element)
            out.m_children.push_back(*b++);
        else {
            out.m_children.push_back(Child{ a->element, a->set.unite(b->set) });
            ++a, ++b;
        }
    }
    return out;
}

FieldSet FieldSet::intersection(const FieldSet &other) const
{
    FieldSet out;
    std::set_intersection(m_members.begin(),
                          m_members.end(),
                          other.m_members.begin(),
                          other.m_members.end(),
                          std::back_inserter(out.m_members));
    for (const Child &child : m_children) {
        const FieldSet &theirs = other.withPrefix(child.element);
        if (!theirs.empty())
            out.m_children.push_back(Child{ child.element, child.set.intersection(theirs) });
    }
    out.dropEmptyChildren();
    return out;
}

FieldSet FieldSet::difference(const FieldSet &other) const
{
    FieldSet out;
    std::set_difference(m_members.begin(),
                        m_members.end(),
                        other.m_members.begin(),
                        other.m_members.end(),
                        std::back_inserter(out.m_members));
    for (const Child &child : m_children)
        out.m_children.push_back(
            Child{ child.element, child.set.difference(other.withPrefix(child.element)) });
    out.dropEmptyChildren();
    return out;
}

FieldSet FieldSet::recursiveDifference(const FieldSet &other) const
{
    FieldSet out;
    std::set_difference(m_members.begin(),
                        m_members.end(),
                        other.m_members.begin(),
                        other.m_members.end(),
                        std::back_inserter(out.m_members));
    for (const Child &child : m_children) {
        if (!other.hasMember(child.element))
            out.m_children.push_back(Child{
                child.element, child.set.recursiveDifference(other.withPrefix(child.element)) });
    }
    out.dropEmptyChildren();
    return out;
}

void FieldSet::forEachPrefixed(Path &prefix, const std::function<void(const Path &)> &visit) const
{
    for (const PathElement &member : m_members) {
        prefix.push_back(member);
        visit(prefix);
        prefix.pop_back();
    }
    for (const Child &child : m_children) {
        prefix.push_back(child.element);
        child.set.forEachPrefixed(prefix, visit);
        prefix.pop_back();
    }
}

void FieldSet::forEach(const std::function<void(const Path &)> &visit) const
{
    Path prefix;
    forEachPrefixed(prefix, visit);
}

std::vector<Path> FieldSet::paths() const
{
    std::vector<Path> out;
    forEach([&](const Path &path) { out.push_back(path); });
    return out;
}

std::string FieldSet::toString() const
{
    std::string out;
    forEach([&](const Path &path) { out += pathString(path) + "\n"; });
    return out;
}

bool FieldSet::operator==(const FieldSet &other) const
{
    if (m_members != other.m_members || m_children.size() != other.m_children.size())
        return false;
    for (std::size_t i = 0; i < m_children.size(); ++i) {
        if (!(m_children[i].element == other.m_children[i].element)
            || !(m_children[i].set == other.m_children[i].set))
            return false;
    }
    return true;
}

} // namespace reconscope::controller::fieldowner
