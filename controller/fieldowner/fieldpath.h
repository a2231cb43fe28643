#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

// Field paths and sets of them as structured-merge-diff (sigs.k8s.io/structured-merge-diff,
// fieldpath) keeps them: what one field manager owns, what an object sets, what changed.
namespace reconscope::controller::fieldowner {

// One step of a field path: a field of a map, an item of a list-type=map list by its key
// fields, an item of a list-type=set list by its value, or (never emitted for CRDs, read for
// completeness) a list index.
struct PathElement
{
    enum class Kind : unsigned char { Field, Key, Value, Index };

    Kind kind = Kind::Field;
    std::string name; // Field
    nlohmann::json value; // Key: an object of the key fields; Value: the set member
    long long index = 0; // Index

    static PathElement field(std::string name);
    static PathElement key(nlohmann::json keyFields);
    static PathElement member(nlohmann::json value);
    static PathElement at(long long index);

    // Upstream's order: fields (by name) before keys before values before indices.
    int compare(const PathElement &other) const;
    bool operator==(const PathElement &other) const { return compare(other) == 0; }
    bool operator<(const PathElement &other) const { return compare(other) < 0; }

    // As upstream prints it in conflicts: ".replicas", "[name=\"http\"]", "[=\"a\"]", "[0]".
    std::string toString() const;
};

using Path = std::vector<PathElement>;

// ".spec.ports[name=\"http\"].port"
std::string pathString(const Path &path);

// The total order structured-merge-diff gives JSON values (numbers, then strings, booleans,
// lists, maps, null): it sorts set members and key fields.
int compareValues(const nlohmann::json &a, const nlohmann::json &b);

// A set of field paths as a tree: at each level the elements that are members (owned leaves or
// owned containers) and the children that lead further down. Children are never empty.
class FieldSet
{
public:
    struct Child;

    bool empty() const;
    bool has(const Path &path) const;
    void insert(const Path &path);
    // The paths below `element`, the element itself not included; empty when there are none.
    const FieldSet &withPrefix(const PathElement &element) const;
    bool hasMember(const PathElement &element) const;

    FieldSet unite(const FieldSet &other) const;
    FieldSet intersection(const FieldSet &other) const;
    // Paths of this set that `other` does not hold; a member of `other` removes only itself.
    FieldSet difference(const FieldSet &other) const;
    // As difference(), but a member of `other` also removes every path below it.
    FieldSet recursiveDifference(const FieldSet &other) const;

    // Every path, in upstream's order: this level's members, then each child's paths.
    void forEach(const std::function<void(const Path &)> &visit) const;
    std::vector<Path> paths() const;
    // One path per line, for test failures.
    std::string toString() const;

    const std::vector<PathElement> &members() const { return m_members; }
    const std::vector<Child> &children() const { return m_children; }
    // Building blocks for readers that produce members and children in order.
    void insertMember(const PathElement &element);
    FieldSet &descend(const PathElement &element);

    bool operator==(const FieldSet &other) const;

private:
    void forEachPrefixed(Path &prefix, const std::function<void(const Path &)> &visit) const;
    void dropEmptyChildren();

    std::vector<PathElement> m_members; // sorted
    std::vector<Child> m_children; // sorted by element
};

struct FieldSet::Child
{
    PathElement element;
    FieldSet set;
};

} // namespace reconscope::controller::fieldowner
