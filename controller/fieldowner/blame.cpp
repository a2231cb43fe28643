#include "controller/fieldowner/blame.h"

#include "controller/fieldowner/fieldpath.h"
#include "models/objectyaml.h"
#include "models/resourcetablemodel.h"
#include "models/rfc3339.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::fieldowner {

namespace {

using Json = nlohmann::json;

// A readable entry: who, and what they own.
struct Holder
{
    FieldOwner owner;
    FieldSet set;
};

std::vector<Holder> readEntries(const Json &object, Blame &blame)
{
    std::vector<Holder> holders;
    const Json *list = managedFieldsOf(object);
    if (!list || list->is_null())
        return holders;
    if (!list->is_array()) {
        blame.problems << u"managedFields: expected an array, got %1"_s.arg(
            QString::fromUtf8(list->type_name()));
        return holders;
    }
    // One by one, so that an unreadable entry leaves the others readable.
    for (std::size_t i = 0; i < list->size(); ++i) {
        Json one = Json::array();
        one.push_back((*list)[i]);
        const auto decoded = decodeManagedFields(one);
        if (!decoded) {
            blame.problems << u"managedFields[%1]: %2"_s.arg(i).arg(decoded.error().message);
            continue;
        }
        for (const auto &[identifier, entry] : decoded.value()) {
            Holder holder;
            holder.owner.manager = QString::fromStdString(entry.id.manager);
            holder.owner.operation
                = entry.id.operation == Operation::Apply ? u"Apply"_s : u"Update"_s;
            holder.owner.subresource = QString::fromStdString(entry.id.subresource);
            holder.owner.apiVersion = QString::fromStdString(entry.apiVersion);
            holder.owner.time = entry.time;
            holder.set = entry.fields;
            blame.managers << holder.owner;
            holders.push_back(std::move(holder));
        }
    }
    return holders;
}

// The part of `set` below `path` (empty when nothing is).
const FieldSet &below(const FieldSet &set, const Path &path)
{
    const FieldSet *node = &set;
    for (const PathElement &element : path) {
        node = &node->withPrefix(element);
        if (node->empty())
            break;
    }
    return *node;
}

// The first line of jsonToYaml's text for `value` (a one-member map or a one-item list).
QStringList yamlLines(const Json &value)
{
    QString text = QString::fromUtf8(models::jsonToYaml(value));
    if (text.endsWith(u'\n'))
        text.chop(1);
    return text.split(u'\n');
}

// The YAML of an object, a line per field, each with the path it shows.
class Renderer
{
public:
    explicit Renderer(const std::vector<Holder> &holders)
        : m_holders(holders)
    { }

    QList<BlameLine> render(const Json &object)
    {
        Path path;
        map(object, path, 0);
        return std::move(m_lines);
    }

private:
    void add(const QString &text, const Path &path)
    {
        BlameLine line;
        line.text = text;
        line.path = QString::fromStdString(pathString(path));
        for (const Holder &holder : m_holders) {
            if (holder.set.has(path))
                line.owners << holder.owner;
        }
        if (line.owners.isEmpty()) {
            // Owned whole through a container: the holder owns a prefix and nothing below it.
            for (const Holder &holder : m_holders) {
                Path prefix;
                for (std::size_t i = 0; i + 1 < path.size(); ++i) {
                    prefix.push_back(path[i]);
                    if (holder.set.has(prefix) && below(holder.set, prefix).empty()) {
                        line.owners << holder.owner;
                        break;
                    }
                }
            }
            line.inherited = !line.owners.isEmpty();
        }
        m_lines << line;
    }

    void addAll(const QStringList &texts, const QString &indent, const Path &path)
    {
        for (const QString &text : texts)
            add(indent + text, path);
    }

    void map(const Json &object, Path &path, int indent)
    {
        const QString pad(indent, u' ');
        for (auto it = object.begin(); it != object.end(); ++it) {
            path.push_back(PathElement::field(it.key()));
            const Json &value = it.value();
            if (value.is_structured() && !value.empty()) {
                QString key = yamlLines(Json::object({ { it.key(), 0 } })).constFirst();
                key.chop(3); // ": 0"
                add(pad + key + u':', path);
                if (value.is_object())
                    map(value, path, indent + 2);
                else
                    list(value, path, indent);
            } else {
                addAll(yamlLines(Json::object({ { it.key(), value } })), pad, path);
            }
            path.pop_back();
        }
    }

    void list(const Json &array, Path &path, int indent)
    {
        const QString pad(indent, u' ');
        for (std::size_t i = 0; i < array.size(); ++i) {
            const Json &item = array[i];
            path.push_back(itemElement(item, path, i));
            if (item.is_object() && !item.empty()) {
                const qsizetype first = m_lines.size();
                map(item, path, indent + 2);
                m_lines[first].text.replace(indent, 2, u"- "_s);
            } else {
                Json one = Json::array();
                one.push_back(item);
                addAll(yamlLines(one), pad, path);
            }
            path.pop_back();
        }
    }

    // How managedFields name a list's item: by its key fields (list-type map), by its value
    // (set), else by its index.
    PathElement itemElement(const Json &item, const Path &listPath, std::size_t index) const
    {
        for (const Holder &holder : m_holders) {
            const FieldSet &node = below(holder.set, listPath);
            auto matches = [&](const PathElement &element) {
                if (element.kind == PathElement::Kind::Value)
                    return element.value == item;
                if (element.kind != PathElement::Kind::Key || !item.is_object())
                    return false;
                for (const auto &[name, value] : element.value.items()) {
                    const auto found = item.find(name);
                    if (found == item.end() || !(*found == value))
                        return false;
                }
                return true;
            };
            for (const PathElement &element : node.members()) {
                if (matches(element))
                    return element;
            }
            for (const auto &child : node.children()) {
                if (matches(child.element))
                    return child.element;
            }
        }
        return PathElement::at(static_cast<long long>(index));
    }

    const std::vector<Holder> &m_holders;
    QList<BlameLine> m_lines;
};

QString ownersText(const QList<FieldOwner> &owners,
                   bool inherited,
                   const QDateTime &now,
                   const QString &manager)
{
    QStringList parts;
    for (const FieldOwner &owner : owners) {
        if (!manager.isEmpty() && owner.manager != manager)
            continue;
        QString part = owner.label();
        if (owner.time.isValid())
            part += u' '
                + models::ResourceTableModel::formatAge(
                        std::max<qint64>(0, owner.time.msecsTo(now)));
        parts << part;
    }
    if (parts.isEmpty())
        return {};
    return (inherited ? u"^"_s : QString()) + parts.join(u", "_s);
}

Json ownerJson(const FieldOwner &owner)
{
    return { { "manager", owner.manager.toStdString() },
             { "operation", owner.operation.toStdString() },
             { "subresource", owner.subresource.toStdString() },
             { "apiVersion", owner.apiVersion.toStdString() },
             { "time",
               owner.time.isValid() ? Json(models::formatRfc3339(owner.time).toStdString())
                                    : Json() } };
}

} // namespace

QString FieldOwner::label() const
{
    return subresource.isEmpty() ? u"%1 (%2)"_s.arg(manager, operation)
                                 : u"%1 (%2 /%3)"_s.arg(manager, operation, subresource);
}

Blame blame(const nlohmann::json &object)
{
    Blame out;
    if (!object.is_object()) {
        out.problems << u"not an object"_s;
        return out;
    }
    const std::vector<Holder> holders = readEntries(object, out);

    Json shown = object;
    if (auto metadata = shown.find("metadata"); metadata != shown.end() && metadata->is_object())
        metadata->erase("managedFields");
    out.lines = Renderer(holders).render(shown);

    FieldSet all;
    for (const Holder &holder : holders)
        all = all.unite(holder.set);
    all.forEach([&](const Path &path) {
        OwnedField field;
        field.path = QString::fromStdString(pathString(path));
        for (const Holder &holder : holders) {
            if (holder.set.has(path))
                field.owners << holder.owner;
        }
        out.fields << field;
    });
    return out;
}

QString blameText(const Blame &blame, const QDateTime &now, const QString &manager)
{
    QStringList gutters;
    qsizetype width = 0;
    for (const BlameLine &line : blame.lines) {
        gutters << ownersText(line.owners, line.inherited, now, manager);
        width = std::max(width, gutters.back().size());
    }
    width = std::min<qsizetype>(width, 48);
    QString text;
    for (qsizetype i = 0; i < blame.lines.size(); ++i)
        text += gutters[i].leftJustified(width) + u" | "_s + blame.lines[i].text + u'\n';
    for (const QString &problem : blame.problems)
        text += u"# unreadable: "_s + problem + u'\n';
    return text;
}

nlohmann::json blameJson(const Blame &blame)
{
    Json fields = Json::array();
    for (const OwnedField &field : blame.fields) {
        Json owners = Json::array();
        for (const FieldOwner &owner : field.owners)
            owners.push_back(ownerJson(owner));
        fields.push_back({ { "path", field.path.toStdString() }, { "owners", owners } });
    }
    Json managers = Json::array();
    for (const FieldOwner &owner : blame.managers)
        managers.push_back(ownerJson(owner));
    Json problems = Json::array();
    for (const QString &problem : blame.problems)
        problems.push_back(problem.toStdString());
    return { { "fields", fields }, { "managers", managers }, { "problems", problems } };
}

} // namespace reconscope::controller::fieldowner
