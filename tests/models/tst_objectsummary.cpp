#include "models/objectsummary.h"
#include "models/rfc3339.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

const char *const FullObject = R"({
  "apiVersion": "argoproj.io/v1alpha1",
  "kind": "Application",
  "metadata": {
    "name": "guestbook",
    "namespace": "argo-cd",
    "uid": "94978696-4fd4-40b3-a1de-38d9df9e9316",
    "resourceVersion": "722811357",
    "generation": 263,
    "creationTimestamp": "2024-03-04T21:30:33Z",
    "finalizers": ["resources-finalizer.argocd.argoproj.io"],
    "labels": {"team": "sre", "preview": "true"},
    "annotations": {"big": "ignored"},
    "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]
  },
  "spec": {"project": "sre", "source": {"path": "instances/test"}},
  "status": {
    "observedGeneration": 262,
    "health": {"status": "Healthy", "message": "all good"},
    "sync": {"status": "Synced", "revision": "abc"},
    "history": [{"id": 14}, {"id": 15}],
    "conditions": [
      {"type": "Ready", "status": "True", "reason": "Synced", "message": "ok",
       "lastTransitionTime": "2024-03-05T07:33:04Z", "observedGeneration": 262},
      {"type": "Degraded", "status": "False"}
    ]
  }
})";

LifecycleMapping argoMapping()
{
    LifecycleMapping mapping;
    mapping.healthPath = u"status.health.status"_s;
    mapping.statusFields = { u"status.sync"_s, u".status.history"_s, u"status.missing.field"_s };
    return mapping;
}

} // namespace

class tst_ObjectSummary : public QObject
{
    Q_OBJECT

private slots:
    void projectsFields();
    void bytesMatchJson();
    void clusterScopedKey();
    void lenientReading();
    void managedFieldsKept();
    void int64Exactness_data();
    void int64Exactness();
    void rejects_data();
    void rejects();
    void statusKinds_data();
    void statusKinds();
    void bytesSkipWhatIsNotNeeded();
    void deepNesting();
    void mutatedInputNeverCrashes();
};

void tst_ObjectSummary::projectsFields()
{
    auto summary = ObjectSummary::fromJson(nlohmann::json::parse(FullObject), argoMapping());
    QVERIFY(summary.ok());
    QCOMPARE(summary->key, u"argo-cd/guestbook"_s);
    QCOMPARE(summary->namespaceName, u"argo-cd"_s);
    QCOMPARE(summary->name, u"guestbook"_s);
    QCOMPARE(summary->apiVersion, u"argoproj.io/v1alpha1"_s);
    QCOMPARE(summary->kind, u"Application"_s);
    QCOMPARE(summary->uid, u"94978696-4fd4-40b3-a1de-38d9df9e9316"_s);
    QCOMPARE(summary->resourceVersion, u"722811357"_s);
    QCOMPARE(summary->generation, std::optional<qint64>(263));
    QCOMPARE(summary->observedGeneration, std::optional<qint64>(262));
    QCOMPARE(formatRfc3339(summary->creationTimestamp), u"2024-03-04T21:30:33Z"_s);
    QVERIFY(!summary->markedForDeletion);
    QCOMPARE(summary->finalizers, QStringList{ u"resources-finalizer.argocd.argoproj.io"_s });
    QCOMPARE(summary->labels.size(), 2);
    QCOMPARE(summary->labels.value(u"preview"_s), u"true"_s);
    QVERIFY(summary->hasStatus);
    QVERIFY(!summary->statusEmpty());
    QCOMPARE(summary->statusFieldCount, 5);
    QCOMPARE(summary->conditions.size(), 2);
    QCOMPARE(summary->conditions.front().reason, u"Synced"_s);
    QCOMPARE(summary->conditions.front().observedGeneration, 262);
    QCOMPARE(summary->conditions.back().type, u"Degraded"_s);
    QVERIFY(!summary->conditions.back().lastTransitionTime.isValid());
    QCOMPARE(summary->fields.value(u"status.health.status"_s), u"Healthy"_s);
    QCOMPARE(summary->fields.value(u"status.sync"_s),
             u"{\"revision\":\"abc\",\"status\":\"Synced\"}"_s);
    QCOMPARE(summary->fields.value(u".status.history"_s), u"[{\"id\":14},{\"id\":15}]"_s);
    QVERIFY(!summary->fields.contains(u"status.missing.field"_s));
    QVERIFY(summary->readProblems.isEmpty());
    QVERIFY(!summary->kstatusUnreadable);
}

void tst_ObjectSummary::bytesMatchJson()
{
    const LifecycleMapping mapping = argoMapping();
    auto fromJson = ObjectSummary::fromJson(nlohmann::json::parse(FullObject), mapping);
    auto fromBytes = reconscope::tests::summaryFromBytes(QByteArrayView(FullObject), mapping);
    QVERIFY(fromJson.ok());
    QVERIFY2(fromBytes.ok(), qPrintable(fromBytes.ok() ? QString() : fromBytes.error().message));
    QCOMPARE(fromBytes->key, fromJson->key);
    QCOMPARE(fromBytes->uid, fromJson->uid);
    QCOMPARE(fromBytes->generation, fromJson->generation);
    QCOMPARE(fromBytes->observedGeneration, fromJson->observedGeneration);
    QCOMPARE(fromBytes->creationTimestamp, fromJson->creationTimestamp);
    QCOMPARE(fromBytes->finalizers, fromJson->finalizers);
    QCOMPARE(fromBytes->labels, fromJson->labels);
    QCOMPARE(fromBytes->conditions, fromJson->conditions);
    QCOMPARE(fromBytes->statusFieldCount, fromJson->statusFieldCount);
    QCOMPARE(fromBytes->fields, fromJson->fields);
    QCOMPARE(fromBytes->readProblems, fromJson->readProblems);
}

void tst_ObjectSummary::clusterScopedKey()
{
    auto summary = reconscope::tests::summaryFromBytes(
        QByteArrayView(R"({"metadata":{"name":"upbound-provider-family-azure"}})"), {});
    QVERIFY(summary.ok());
    QCOMPARE(summary->key, u"upbound-provider-family-azure"_s);
    QVERIFY(summary->namespaceName.isEmpty());
    QVERIFY(!summary->hasStatus);
    QCOMPARE(objectKey(u"ns"_s, u"n"_s), u"ns/n"_s);
}

void tst_ObjectSummary::lenientReading()
{
    const char *const messy = R"({
      "metadata": {"name": "keda", "namespace": "keda", "annotations": null, "labels": null,
                   "finalizers": ["finalizer.keda.sh", 7], "creationTimestamp": "not a time",
                   "deletionTimestamp": "2024-04-17T14:51:28Z", "generation": null},
      "status": {"observedGeneration": -1,
                 "conditions": [{"message": "no type"}, "junk",
                                {"type": "Ready", "status": "False", "reason": "CheckFailed"}],
                 "bindings": [{"conditions": [{"type": "Accepted", "status": "True"}]}]}
    })";
    for (const bool bytes : { false, true }) {
        auto summary = bytes ? reconscope::tests::summaryFromBytes(QByteArrayView(messy), {})
                             : ObjectSummary::fromJson(nlohmann::json::parse(messy), {});
        QVERIFY(summary.ok());
        QVERIFY(summary->labels.isEmpty());
        QCOMPARE(summary->finalizers, QStringList{ u"finalizer.keda.sh"_s });
        QVERIFY(!summary->creationTimestamp.isValid());
        QVERIFY(summary->markedForDeletion);
        QCOMPARE(formatRfc3339(summary->deletionTimestamp), u"2024-04-17T14:51:28Z"_s);
        QVERIFY(!summary->generation);
        QCOMPARE(summary->observedGeneration, std::optional<qint64>(-1));
        // Object entries are kept even without type; the string entry is skipped.
        QCOMPARE(summary->conditions.size(), 2);
        QCOMPARE(summary->conditions.back().reason, u"CheckFailed"_s);
        QVERIFY(summary->kstatusUnreadable); // "junk" is not a condition
        QVERIFY2(summary->readProblems.join(u'\n').contains(
                     u"metadata.creationTimestamp: not an RFC 3339 time"_s),
                 qPrintable(summary->readProblems.join(u'\n')));
    }
}

void tst_ObjectSummary::int64Exactness_data()
{
    QTest::addColumn<QByteArray>("generationJson");
    QTest::addColumn<bool>("present");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("2^53+1") << QByteArray("9007199254740993") << true << qint64(9007199254740993);
    QTest::newRow("int64 max") << QByteArray("9223372036854775807") << true
                               << std::numeric_limits<qint64>::max();
    QTest::newRow("int64 min") << QByteArray("-9223372036854775808") << true
                               << std::numeric_limits<qint64>::min();
    QTest::newRow("uint64 beyond int64") << QByteArray("9223372036854775808") << false << qint64(0);
    QTest::newRow("float") << QByteArray("3.0") << false << qint64(0);
    QTest::newRow("string") << QByteArray("\"3\"") << false << qint64(0);
}

void tst_ObjectSummary::int64Exactness()
{
    QFETCH(QByteArray, generationJson);
    QFETCH(bool, present);
    QFETCH(qint64, expected);
    const QByteArray object = R"({"metadata":{"name":"x","generation":)" + generationJson
        + R"(},"status":{"observedGeneration":)" + generationJson + "}}";
    for (const bool bytes : { false, true }) {
        auto summary = bytes
            ? reconscope::tests::summaryFromBytes(object, {})
            : ObjectSummary::fromJson(nlohmann::json::parse(object.toStdString()), {});
        QVERIFY(summary.ok());
        QCOMPARE(summary->generation.has_value(), present);
        QCOMPARE(summary->observedGeneration.has_value(), present);
        QCOMPARE(summary->kstatusUnreadable, !present);
        if (present) {
            QCOMPARE(*summary->generation, expected);
            QCOMPARE(*summary->observedGeneration, expected);
        }
    }
}

void tst_ObjectSummary::rejects_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("array") << QByteArray("[1,2]") << u"expected a JSON object, got array"_s;
    QTest::newRow("number") << QByteArray("42") << u"expected a JSON object"_s;
    QTest::newRow("truncated") << QByteArray(R"({"metadata":{"name":"x")") << u"invalid JSON"_s;
    QTest::newRow("garbage") << QByteArray("{\"a\":tru}") << u"invalid JSON"_s;
    QTest::newRow("empty") << QByteArray() << u"invalid JSON"_s;
    QTest::newRow("no name") << QByteArray(R"({"metadata":{"namespace":"x"}})")
                             << u"metadata.name"_s;
    QTest::newRow("metadata array") << QByteArray(R"({"metadata":[]})") << u"metadata.name"_s;
}

void tst_ObjectSummary::rejects()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, messagePart);
    auto summary = reconscope::tests::summaryFromBytes(bytes, {});
    QVERIFY(!summary.ok());
    QVERIFY2(summary.error().message.contains(messagePart), qPrintable(summary.error().message));
}

void tst_ObjectSummary::statusKinds_data()
{
    QTest::addColumn<QByteArray>("status");
    QTest::addColumn<bool>("hasStatus");
    QTest::addColumn<bool>("empty");
    QTest::addColumn<int>("fieldCount");
    QTest::newRow("absent") << QByteArray() << false << false << 0;
    QTest::newRow("null") << QByteArray(R"(,"status":null)") << false << false << 0;
    QTest::newRow("empty") << QByteArray(R"(,"status":{})") << true << true << 0;
    QTest::newRow("string") << QByteArray(R"(,"status":"x")") << false << false << 0;
    QTest::newRow("fields") << QByteArray(
        R"(,"status":{"a":{"b":[1,{"c":2}]},"replicas":3,"observedGeneration":1})")
                            << true << false << 3;
}

void tst_ObjectSummary::statusKinds()
{
    QFETCH(QByteArray, status);
    QFETCH(bool, hasStatus);
    QFETCH(bool, empty);
    QFETCH(int, fieldCount);
    const QByteArray object = R"({"metadata":{"name":"x"})" + status + "}";
    for (const bool bytes : { false, true }) {
        auto summary = bytes
            ? reconscope::tests::summaryFromBytes(object, {})
            : ObjectSummary::fromJson(nlohmann::json::parse(object.toStdString()), {});
        QVERIFY(summary.ok());
        QCOMPARE(summary->hasStatus, hasStatus);
        QCOMPARE(summary->statusEmpty(), empty);
        QCOMPARE(summary->statusFieldCount, fieldCount);
    }
}

// managedFields are kept entry by entry, fieldsV1 as compact JSON with members in name order;
// what is of the wrong type is noted and left out, never an error.
void tst_ObjectSummary::managedFieldsKept()
{
    const char *const object = R"({"metadata": {"name": "a", "managedFields": [
        {"manager": "gitops", "operation": "Apply", "apiVersion": "x.io/v1",
         "time": "2026-12-05T01:02:03Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:replicas": {}, ".": {}}}},
        "junk",
        {"manager": "ctl", "operation": "Update", "subresource": "status", "time": 5,
         "fieldsType": "FieldsV2", "fieldsV1": []}]}})";
    for (const bool bytes : { false, true }) {
        auto summary = bytes ? reconscope::tests::summaryFromBytes(QByteArrayView(object), {})
                             : ObjectSummary::fromJson(nlohmann::json::parse(object), {});
        QVERIFY(summary.ok());
        QCOMPARE(summary->managedFields.size(), 2);
        const ManagedFieldsEntry &apply = summary->managedFields[0];
        QCOMPARE(apply.manager, u"gitops"_s);
        QCOMPARE(apply.operation, u"Apply"_s);
        QCOMPARE(apply.apiVersion, u"x.io/v1"_s);
        QVERIFY(apply.subresource.isEmpty());
        QCOMPARE(formatRfc3339(apply.time), u"2026-12-05T01:02:03Z"_s);
        QCOMPARE(apply.fieldsType, u"FieldsV1"_s);
        QCOMPARE(apply.fieldsV1, QString::fromLatin1(R"({"f:spec":{".":{},"f:replicas":{}}})"));
        const ManagedFieldsEntry &status = summary->managedFields[1];
        QCOMPARE(status.subresource, u"status"_s);
        QCOMPARE(status.fieldsType, u"FieldsV2"_s);
        QVERIFY(!status.time.isValid());
        QVERIFY(status.fieldsV1.isEmpty());
        const QString problems = summary->readProblems.join(u'\n');
        QVERIFY2(problems.contains(u"metadata.managedFields: an entry is not an object"_s),
                 qPrintable(problems));
        QVERIFY2(problems.contains(u"metadata.managedFields[1].time: expected a string"_s),
                 qPrintable(problems));
        QVERIFY2(problems.contains(u"metadata.managedFields[1].fieldsV1: expected an object"_s),
                 qPrintable(problems));
    }
}

void tst_ObjectSummary::bytesSkipWhatIsNotNeeded()
{
    // A large object (big spec, managedFields, history): the reader from bytes must give the same
    // summary and not be slower than building the whole tree.
    nlohmann::json object = nlohmann::json::parse(FullObject);
    nlohmann::json history = nlohmann::json::array();
    for (int i = 0; i < 5000; ++i)
        history.push_back({ { "id", i },
                            { "revision", std::string(40, 'a') },
                            { "deep", { { "x", { 1, 2, 3 } } } } });
    object["status"]["history"] = history;
    object["spec"]["big"] = history;
    const QByteArray bytes = QByteArray::fromStdString(object.dump());
    LifecycleMapping mapping;
    mapping.healthPath = u"status.health.status"_s;

    QElapsedTimer timer;
    timer.start();
    auto viaTree = ObjectSummary::fromJson(nlohmann::json::parse(bytes.toStdString()), mapping);
    const qint64 treeNs = timer.nsecsElapsed();
    timer.restart();
    auto viaBytes = reconscope::tests::summaryFromBytes(bytes, mapping);
    const qint64 bytesNs = timer.nsecsElapsed();
    QVERIFY(viaTree.ok());
    QVERIFY(viaBytes.ok());
    QCOMPARE(viaBytes->statusFieldCount, viaTree->statusFieldCount);
    QCOMPARE(viaBytes->fields, viaTree->fields);
    QCOMPARE(viaBytes->conditions, viaTree->conditions);
    qInfo("%lld bytes: tree %.1f ms, bytes %.1f ms",
          qint64(bytes.size()),
          treeNs / 1e6,
          bytesNs / 1e6);
}

void tst_ObjectSummary::deepNesting()
{
    // Deep nesting in a skipped part and in a kept part: refused beyond Go's encoding/json limit
    // of 10000 levels, accepted below it, and never a stack overflow.
    for (const QByteArray &where : { QByteArray("spec"), QByteArray("status\":{\"conditions") }) {
        for (const int depth : { 9000, 200000 }) {
            const QByteArray bytes = R"({"metadata":{"name":"x"},")" + where + R"(":)"
                + QByteArray(depth, '[') + QByteArray(depth, ']') + (where == "spec" ? "}" : "}}");
            auto summary = reconscope::tests::summaryFromBytes(bytes, {});
            QCOMPARE(summary.ok(), depth < 10000);
            if (!summary.ok())
                QVERIFY2(summary.error().message.contains(u"nested deeper than 10000"_s),
                         qPrintable(summary.error().message));
        }
    }
}

void tst_ObjectSummary::mutatedInputNeverCrashes()
{
    // Deterministic mutations of a real-looking object: every result is a summary or an error,
    // and whenever the bytes still parse as an object with a name, both paths agree.
    const QByteArray original(FullObject);
    QRandomGenerator random(20261129);
    const QByteArray alphabet = "{}[]\",:0123456789-.eE truefalsnul\\";
    int ok = 0;
    for (int round = 0; round < 3000; ++round) {
        QByteArray bytes = original;
        const int edits = 1 + int(random.bounded(4));
        for (int e = 0; e < edits && !bytes.isEmpty(); ++e) {
            const auto pos = qsizetype(random.bounded(quint32(bytes.size())));
            switch (random.bounded(4)) {
            case 0:
                bytes[pos] = alphabet.at(qsizetype(random.bounded(quint32(alphabet.size()))));
                break;
            case 1:
                bytes.remove(pos, 1 + qsizetype(random.bounded(20)));
                break;
            case 2:
                bytes.insert(pos, alphabet.at(qsizetype(random.bounded(quint32(alphabet.size())))));
                break;
            default:
                bytes.truncate(pos);
                break;
            }
        }
        auto fromBytes = reconscope::tests::summaryFromBytes(bytes, argoMapping());
        const auto tree = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (tree.is_discarded()) {
            QVERIFY2(!fromBytes.ok(), bytes.constData());
            continue;
        }
        auto fromJson = ObjectSummary::fromJson(tree, argoMapping());
        QCOMPARE(fromBytes.ok(), fromJson.ok());
        if (fromBytes.ok()) {
            ++ok;
            QCOMPARE(fromBytes->key, fromJson->key);
            QCOMPARE(fromBytes->generation, fromJson->generation);
            QCOMPARE(fromBytes->conditions, fromJson->conditions);
            QCOMPARE(fromBytes->fields, fromJson->fields);
        }
    }
    QVERIFY(ok > 0);
}

QTEST_APPLESS_MAIN(tst_ObjectSummary)
#include "tst_objectsummary.moc"
