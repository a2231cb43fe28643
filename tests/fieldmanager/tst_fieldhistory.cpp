// Field history: each write of a followed object as the fields it changed, with the manager that
// owns them after it (from managedFields), bounded; bookkeeping fields are no history.
#include "controller/fieldowner/fieldhistory.h"

#include <QTest>

using namespace Qt::StringLiterals;
namespace fieldowner = reconscope::controller::fieldowner;
using Json = nlohmann::json;

namespace {

const QDateTime Start = QDateTime(QDate(2026, 12, 5), QTime(1, 0), Qt::UTC);

// A version of a CustomApp: `replicas` written by `writer` at `second`, and a label by kubectl.
Json version(int replicas, const std::string &writer, int second, int rv, bool label = true)
{
    Json managed = Json::array();
    const std::string time = Start.addSecs(second).toString(Qt::ISODate).toStdString();
    managed.push_back({ { "manager", writer },
                        { "operation", "Update" },
                        { "apiVersion", "infrastructure.internal.net/v1" },
                        { "time", time },
                        { "fieldsType", "FieldsV1" },
                        { "fieldsV1", { { "f:spec", { { "f:replicas", Json::object() } } } } } });
    Json metadata = { { "name", "web" },
                      { "namespace", "lab" },
                      { "resourceVersion", std::to_string(rv) },
                      { "generation", rv },
                      { "managedFields", managed } };
    if (label)
        metadata["labels"] = { { "team", "sre" } };
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata", metadata },
             { "spec", { { "image", "nginx" }, { "replicas", replicas } } } };
}

} // namespace

class tst_FieldHistory : public QObject
{
    Q_OBJECT

private slots:
    void eachWriteWithItsManager();
    void boundedAndFollowed();
};

void tst_FieldHistory::eachWriteWithItsManager()
{
    fieldowner::FieldHistory history;
    QCOMPARE(history.observe(version(1, "gitops", 0, 10), Start), 0); // the baseline
    QCOMPARE(history.observe(version(3, "reconciler", 5, 11), Start.addSecs(5)), 1);
    QCOMPARE(history.observe(version(1, "gitops", 9, 12), Start.addSecs(9)), 1);
    // Only bookkeeping changed (resourceVersion, generation, managedFields): nothing.
    QCOMPARE(history.observe(version(1, "gitops", 12, 13), Start.addSecs(12)), 0);
    // A label removed: a change with the manager that owned it (none here: unknown).
    QCOMPARE(history.observe(version(1, "gitops", 12, 14, false), Start.addSecs(13)), 1);

    const auto &changes = history.changes();
    QCOMPARE(changes.size(), std::size_t(3));
    QCOMPARE(changes[0].path, u".spec.replicas"_s);
    QCOMPARE(changes[0].before, u"replicas: 1"_s);
    QCOMPARE(changes[0].after, u"replicas: 3"_s);
    QCOMPARE(changes[0].writer(), u"reconciler (Update)"_s);
    QCOMPARE(changes[0].time, Start.addSecs(5));
    QCOMPARE(changes[0].resourceVersion, u"11"_s);
    QCOMPARE(changes[1].writer(), u"gitops (Update)"_s);
    QCOMPARE(changes[1].after, u"replicas: 1"_s);
    QCOMPARE(changes[2].path, u".metadata.labels.team"_s);
    QVERIFY(changes[2].after.isEmpty());
    QCOMPARE(changes[2].writer(), u"unknown"_s);
}

void tst_FieldHistory::boundedAndFollowed()
{
    fieldowner::FieldHistory history(4);
    for (int i = 0; i < 10; ++i)
        history.observe(version(i, i % 2 ? "a" : "b", i, 20 + i), Start.addSecs(i));
    QCOMPARE(history.changes().size(), std::size_t(4));
    QCOMPARE(history.changes().back().after, u"replicas: 9"_s);

    fieldowner::FieldHistories histories(2);
    histories.follow(u"lab/a"_s);
    histories.follow(u"lab/b"_s);
    QCOMPARE(histories.observe(u"lab/x"_s, version(1, "g", 0, 1), Start), 0); // not followed
    QVERIFY(!histories.history(u"lab/x"_s));
    histories.observe(u"lab/a"_s, version(1, "g", 0, 1), Start);
    QCOMPARE(histories.observe(u"lab/a"_s, version(2, "r", 1, 2), Start.addSecs(1)), 1);
    histories.follow(u"lab/c"_s); // the one followed longest ago goes
    QVERIFY(!histories.follows(u"lab/a"_s));
    QCOMPARE(histories.followed(), (QStringList{ u"lab/b"_s, u"lab/c"_s }));
}

QTEST_GUILESS_MAIN(tst_FieldHistory)
#include "tst_fieldhistory.moc"
