// The blame of an object: each YAML line with the managers its managedFields name for the field
// it shows (list-map items by their keys, set members by value, atomic lists owned whole), the
// owned-fields listing, and unreadable entries shown as such beside the readable ones.
#include "blamedata.h"
#include "controller/fieldowner/blame.h"

#include <QTest>

using namespace Qt::StringLiterals;
namespace fieldowner = reconscope::controller::fieldowner;
using Json = nlohmann::json;

namespace {

const fieldowner::BlameLine *lineOf(const fieldowner::Blame &blame, const QString &text)
{
    for (const auto &line : blame.lines) {
        if (line.text == text)
            return &line;
    }
    return nullptr;
}

QStringList managers(const fieldowner::BlameLine &line)
{
    QStringList out;
    for (const auto &owner : line.owners)
        out << owner.manager;
    return out;
}

} // namespace

class tst_Blame : public QObject
{
    Q_OBJECT

private slots:
    void linesNameTheirOwners();
    void listingAndJson();
    void textGutterAndFilter();
    void unreadableManagedFields();
};

void tst_Blame::linesNameTheirOwners()
{
    const auto blame = fieldowner::blame(Json::parse(Object));
    QVERIFY(!lineOf(blame, u"  managedFields:"_s)); // not shown
    const auto *replicas = lineOf(blame, u"  replicas: 3"_s);
    QVERIFY(replicas);
    QCOMPARE(replicas->path, u".spec.replicas"_s);
    QCOMPARE(managers(*replicas), (QStringList{ u"gitops"_s, u"argo"_s })); // shared
    QVERIFY(!replicas->inherited);
    // An atomic list: its items are owned through it.
    const auto *arg = lineOf(blame, u"  - --b"_s);
    QVERIFY(arg);
    QCOMPARE(managers(*arg), QStringList{ u"gitops"_s });
    QVERIFY(arg->inherited);
    // A list-map item by its key; the other item has no owner.
    const auto *port = lineOf(blame, u"    port: 80"_s);
    QVERIFY(port);
    QCOMPARE(port->path, u".spec.ports[name=\"http\"].port"_s);
    QCOMPARE(managers(*port), QStringList{ u"gitops"_s });
    const auto *first = lineOf(blame, u"  - name: http"_s);
    QVERIFY(first);
    QCOMPARE(managers(*first), QStringList{ u"gitops"_s });
    const auto *metrics = lineOf(blame, u"    port: 9090"_s);
    QVERIFY(metrics);
    QVERIFY(metrics->owners.isEmpty());
    const auto *label = lineOf(blame, u"    team: sre"_s);
    QVERIFY(label);
    QCOMPARE(managers(*label), QStringList{ u"kubectl-label"_s });
    const auto *ready = lineOf(blame, u"  readyReplicas: 3"_s);
    QVERIFY(ready);
    QCOMPARE(ready->owners.constFirst().subresource, u"status"_s);
    QCOMPARE(ready->owners.constFirst().label(), u"reconciler (Update /status)"_s);
    // Lines of fields nobody owns have no owners.
    const auto *name = lineOf(blame, u"  name: web"_s);
    QVERIFY(name);
    QVERIFY(name->owners.isEmpty());
}

void tst_Blame::listingAndJson()
{
    const auto blame = fieldowner::blame(Json::parse(Object));
    QStringList paths;
    for (const auto &field : blame.fields)
        paths << field.path;
    QCOMPARE(paths,
             (QStringList{ u".metadata.labels"_s,
                           u".metadata.labels.team"_s,
                           u".spec.args"_s,
                           u".spec.replicas"_s,
                           u".spec.ports[name=\"http\"]"_s,
                           u".spec.ports[name=\"http\"].name"_s,
                           u".spec.ports[name=\"http\"].port"_s,
                           u".status.readyReplicas"_s }));
    QCOMPARE(blame.managers.size(), 4);
    const Json json = fieldowner::blameJson(blame);
    QCOMPARE(json.at("fields").size(), std::size_t(8));
    QCOMPARE(json.at("fields")[3].at("owners").size(), std::size_t(2));
    QVERIFY(json.at("fields")[3].at("owners")[0].at("time") == "2026-12-05T01:00:00Z");
    QCOMPARE(json.at("problems").size(), std::size_t(1));
}

void tst_Blame::textGutterAndFilter()
{
    const auto blame = fieldowner::blame(Json::parse(Object));
    const QDateTime now = QDateTime(QDate(2026, 12, 5), QTime(1, 5), Qt::UTC);
    const QString text = fieldowner::blameText(blame, now);
    QVERIFY2(text.contains(u"gitops (Apply) 5m, argo (Apply) 2m |   replicas: 3"_s),
             qPrintable(text));
    QVERIFY2(text.contains(u"^gitops (Apply) 5m"_s), qPrintable(text));
    QVERIFY2(text.contains(u"# unreadable: managedFields[4]:"_s), qPrintable(text));
    const QString filtered = fieldowner::blameText(blame, now, u"argo"_s);
    QVERIFY2(filtered.contains(u"argo (Apply) 2m |   replicas: 3"_s), qPrintable(filtered));
    QVERIFY2(!filtered.contains(u"gitops"_s), qPrintable(filtered));
}

void tst_Blame::unreadableManagedFields()
{
    for (const char *managed : UnreadableManagedFields) {
        const QByteArray object
            = QByteArray(R"({"metadata": {"name": "a", )") + managed + R"(}, "spec": {"x": 1}})";
        const auto blame = fieldowner::blame(Json::parse(object.toStdString()));
        QVERIFY2(!blame.problems.isEmpty(), managed);
        QVERIFY(lineOf(blame, u"  x: 1"_s));
        QVERIFY(blame.fields.isEmpty());
    }
    QCOMPARE(fieldowner::blame(Json::array()).problems, QStringList{ u"not an object"_s });
}

QTEST_GUILESS_MAIN(tst_Blame)
#include "tst_blame.moc"
