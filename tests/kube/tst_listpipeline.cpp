// The informer's list path at scale: the streaming list decoder, the compressed object store
// (CompactJson), the jsonscan-based ObjectSummarizer, and the Reflector's pipelined (prepared)
// list against the plain one.
#include "controller/kube/fastlist/compactjson.h"
#include "controller/kube/fastlist/liststreamdecoder.h"
#include "controller/kube/fastlist/stringpool.h"
#include "controller/kube/objectsummarizer.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/kube/watchdecoder.h"
#include "models/jsonscan.h"
#include "models/yamljson.h"
#include "tests/oracle/summaryoracle.h"
#include "testserver.h"

#include <nlohmann/json.hpp>

#include <QBuffer>
#include <QDir>
#include <QRandomGenerator>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;
using reconscope::models::LifecycleMapping;
using reconscope::models::ObjectSummary;

class tst_ListPipeline final : public QObject
{
    Q_OBJECT

private slots:
    void compactJsonRoundTrip_data();
    void compactJsonRoundTrip();
    void compactJsonFixtures();
    void summarizerMatchesReference_data();
    void summarizerMatchesReference();
    void summarizerTimestampsInARow();
    void streamDecoderAnySplit();
    void streamDecoderNumberCutByAChunk();
    void streamDecoderErrors_data();
    void streamDecoderErrors();
    void streamDecoderReusesItsBuffer();
    void streamDecoderDecodesChunksInPlace();
    void scannerEscapesAtEveryOffset();
    void preparedListEqualsPlain_data();
    void preparedListEqualsPlain();
    void progressiveFirstList_data();
    void progressiveFirstList();
    void stringPoolSharesEqualStrings();
};

namespace {

const ResourceRef CustomApps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true };

// Every object of shared/fixtures/real-crds/objects, as compact JSON.
QList<QPair<QString, QByteArray>> fixtureObjects()
{
    QList<QPair<QString, QByteArray>> out;
    const QDir dir(QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/objects"_s);
    for (const QString &name : dir.entryList({ u"*.yaml"_s, u"*.json"_s }, QDir::Files)) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const auto json = reconscope::models::yamlToJson(file.readAll());
        if (json)
            out.append({ name, QByteArray::fromStdString(json->dump()) });
    }
    return out;
}

QByteArray object(const QByteArray &name, int rv, int padding = 0)
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + name + R"(","namespace":"default","resourceVersion":")" + QByteArray::number(rv)
        + R"(","labels":{"app":")" + name + R"(","tier":"web"}},"spec":{"note":")"
        + QByteArray(padding, 'x') + R"(\"q\" \u00e9"},"status":{"observedGeneration":1,)"
        + R"("conditions":[{"type":"Ready","status":"True","reason":"Ok","message":"fine"}]}})";
}

QByteArray listBody(const QList<QByteArray> &items, int rv, const QByteArray &continueToken = {})
{
    QByteArray body = R"({"apiVersion":"infrastructure.internal.net/v1","items":[)";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? ", " : "") + items[i];
    return body + R"(],"kind":"CustomAppList","metadata":{"continue":")" + continueToken
        + R"(","resourceVersion":")" + QByteArray::number(rv) + R"("}})";
}

void compareSummaries(const ObjectSummary &a, const ObjectSummary &b)
{
    QCOMPARE(a.key, b.key);
    QCOMPARE(a.namespaceName, b.namespaceName);
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.apiVersion, b.apiVersion);
    QCOMPARE(a.kind, b.kind);
    QCOMPARE(a.uid, b.uid);
    QCOMPARE(a.resourceVersion, b.resourceVersion);
    QCOMPARE(a.generation, b.generation);
    QCOMPARE(a.observedGeneration, b.observedGeneration);
    QCOMPARE(a.creationTimestamp, b.creationTimestamp);
    QCOMPARE(a.markedForDeletion, b.markedForDeletion);
    QCOMPARE(a.deletionTimestamp, b.deletionTimestamp);
    QCOMPARE(a.finalizers, b.finalizers);
    QCOMPARE(a.labels, b.labels);
    QCOMPARE(a.managedFields, b.managedFields);
    QCOMPARE(a.conditions, b.conditions);
    QCOMPARE(a.hasStatus, b.hasStatus);
    QCOMPARE(a.statusFieldCount, b.statusFieldCount);
    QCOMPARE(a.fields, b.fields);
    QCOMPARE(a.readProblems, b.readProblems);
    QCOMPARE(a.kstatusUnreadable, b.kstatusUnreadable);
}

// What the test's preparer keeps: the bytes it was given.
struct KeptBytes final : PreparedObject
{
    QByteArray bytes;
};

// A preparer that keeps each listed object's bytes as they came (none for an item without
// metadata).
std::shared_ptr<PreparedObject> keepBytes(QByteArrayView bytes, ObjectMeta *meta)
{
    auto kept = std::make_shared<KeptBytes>();
    kept->bytes = bytes.toByteArray();
    if (!ObjectMeta::peek(bytes, meta))
        return nullptr;
    return kept;
}

// The answer to the n-th watch request: the first ends at once with 410 Expired (so the client
// lists again), later ones stay open.
void answerWatch(QTcpSocket *socket, int n)
{
    TestServer::startStream(socket);
    if (n != 1)
        return;
    TestServer::writeChunk(
        socket,
        R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}})j"
        "\n");
    TestServer::endStream(socket);
}

// A reflector of namespace "default"'s CustomApps on a plain-HTTP test server, retrying at once.
struct ReflectorOn
{
    explicit ReflectorOn(const TestServer &server)
        : client(configFor(server))
        , reflector(&client, CustomApps, u"default"_s)
    {
        reflector.setScheduler([this](std::chrono::milliseconds, std::function<void()> action) {
            QTimer::singleShot(0, &reflector, std::move(action));
        });
    }
    static ClientConfig configFor(const TestServer &server)
    {
        ClientConfig config;
        config.server = QUrl(server.url(u"http"_s));
        return config;
    }
    RestClient client;
    Reflector reflector;
};

} // namespace

void tst_ListPipeline::compactJsonRoundTrip_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("short") << QByteArray(R"({"a":1})");
    QTest::newRow("object") << object("app-1", 7, 2000);
    QByteArray noise(5000, Qt::Uninitialized);
    QRandomGenerator random(20261130);
    for (char &c : noise)
        c = char(random.bounded(256));
    QTest::newRow("incompressible") << noise;
    QTest::newRow("nul bytes") << QByteArray(300, '\0');
}

void tst_ListPipeline::compactJsonRoundTrip()
{
    QFETCH(QByteArray, bytes);
    const CompactJson compact = CompactJson::compress(bytes);
    QCOMPARE(compact.size(), bytes.size());
    QCOMPARE(compact.bytes(), bytes);
    QCOMPARE(compact.isEmpty(), bytes.isEmpty());
    // Never more than the bytes themselves are held.
    QVERIFY(compact.storedSize() <= bytes.size());
    const CompactJson copy = compact;
    QCOMPARE(copy, compact);
    QCOMPARE(copy.bytes(), bytes);
    // With a dictionary made of a sibling object, and after the dictionary's last other owner
    // is gone.
    auto dictionary = CompactJsonDictionary::fromSample(object("app-0", 1, 2000));
    QVERIFY(dictionary);
    const CompactJson withDictionary = CompactJson::compress(bytes, dictionary);
    dictionary.reset();
    QCOMPARE(withDictionary.size(), bytes.size());
    QCOMPARE(withDictionary.bytes(), bytes);
    QVERIFY(withDictionary.storedSize() <= bytes.size());
}

void tst_ListPipeline::compactJsonFixtures()
{
    const auto fixtures = fixtureObjects();
    QVERIFY(fixtures.size() >= 20);
    qsizetype raw = 0;
    qsizetype stored = 0;
    for (const auto &[name, bytes] : fixtures) {
        const CompactJson compact = CompactJson::compress(bytes);
        QVERIFY2(compact.bytes() == bytes, qPrintable(name));
        raw += bytes.size();
        stored += compact.storedSize();
    }
    QVERIFY2(stored < raw, qPrintable(u"%1 of %2 bytes"_s.arg(stored).arg(raw)));
    // A generated bench-style object compresses well, and better still against a sibling.
    const QByteArray big = object("app-7", 9, 2000);
    QVERIFY(CompactJson::compress(big).isCompressed());
    QVERIFY(CompactJson::compress(big).storedSize() < big.size() / 2);
    const auto sibling = CompactJsonDictionary::fromSample(object("app-1", 3, 2000));
    const CompactJson small = CompactJson::compress(big, sibling);
    QCOMPARE(small.bytes(), big);
    QVERIFY(small.storedSize() < CompactJson::compress(big).storedSize());
    // Every fixture against the first fixture as the dictionary.
    const auto shared = CompactJsonDictionary::fromSample(fixtures.front().second);
    for (const auto &[name, bytes] : fixtures)
        QVERIFY2(CompactJson::compress(bytes, shared).bytes() == bytes, qPrintable(name));
    QVERIFY(!CompactJsonDictionary::fromSample("{}"));
}

void tst_ListPipeline::summarizerMatchesReference_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("projectStatus");
    for (const auto &[name, bytes] : fixtureObjects()) {
        QTest::newRow(qPrintable(name)) << bytes << false;
        QTest::newRow(qPrintable(name + u" (mapping paths)"_s)) << bytes << true;
        const QByteArray pretty = QByteArray::fromStdString(
            nlohmann::json::parse(bytes.cbegin(), bytes.cend()).dump(2));
        QTest::newRow(qPrintable(name + u" (pretty)"_s)) << pretty << true;
    }
    // The fuzzer's corpus and the real CRDs (objects too, with conditions of their own).
    const QDir corpus(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                      + u"/tests/fuzz/corpus/fuzz_summarizer"_s);
    for (const QString &name : corpus.entryList(QDir::Files)) {
        QFile file(corpus.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QTest::newRow(qPrintable(u"corpus "_s + name)) << bytes << false;
        QTest::newRow(qPrintable(u"corpus "_s + name + u" (mapping paths)"_s)) << bytes << true;
    }
    const QDir crds(QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/crds"_s);
    for (const QString &name : crds.entryList({ u"*.yaml"_s, u"*.json"_s }, QDir::Files)) {
        QFile file(crds.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = reconscope::models::yamlToJson(file.readAll());
        QVERIFY(json);
        QTest::newRow(qPrintable(u"crd "_s + name))
            << QByteArray::fromStdString(json->dump()) << true;
    }
    QTest::newRow("generated") << object("app-1", 7, 100) << false;
    QTest::newRow("escaped keys") << QByteArray(
        R"({"kind":"X","met\u0061data":{"name":"n\"1","namespace":"d"}})")
                                  << false;
    QTest::newRow("duplicate status") << QByteArray(
        R"({"metadata":{"name":"a"},"status":{"x":1},"status":{"observedGeneration":3,"y":2}})")
                                      << false;
    QTest::newRow("wrong types") << QByteArray(
        R"({"metadata":{"name":"a","generation":"7","labels":{"k":1},"finalizers":"f"},"status":{"conditions":{"type":"Ready"}}})")
                                 << false;
    QTest::newRow("status not an object")
        << QByteArray(R"({"metadata":{"name":"a"},"status":"fine"})") << false;
    QTest::newRow("array on the way")
        << QByteArray(R"({"metadata":{"name":"a"},"status":[{"phase":"Ready"}]})") << true;
    // Values the summarizer builds without nlohmann's lexer, and those it leaves to it.
    QTest::newRow("plain and not plain values") << QByteArray(
        R"({"metadata":{"name":"caf\u00e9","namespace":"ns-Ã©","generation":9223372036854775807,)"
        R"("labels":{"a":"b","\u0063":"d","e":"â¬","f":"g\"h"},"finalizers":["x","y\n"]},)"
        R"("status":{"observedGeneration":-0,"phase":"Ready","sync":{"n":[1,-2,3.5,1e3,true,null,)"
        R"({"k":"v"}],"big":18446744073709551616,"neg":-9223372036854775808},)"
        R"("history":[[[]],{},[{"a":{"b":[false]}}]],"health":{"status":"ð"},)"
        R"("conditions":[{"type":"Ready","status":"True","reason":"R\u00e9","message":"m\/x",)"
        R"("observedGeneration":3,"lastTransitionTime":"2026-11-30T07:00:00Z"}]}})")
                                                << true;
    QTest::newRow("too large generation") << QByteArray(
        R"({"metadata":{"name":"a","generation":18446744073709551615},"status":{"observedGeneration":1.0}})")
                                          << false;
    // Objects of the usual shape (read straight into the summary without projections) and
    // near misses that go the general way.
    // managedFields: fieldsV1 texts as compactJson writes them (read straight), and the near
    // misses (members out of name order, whitespace, escapes, numbers in keys, odd types).
    const auto managed = [](const QByteArray &entries) {
        return R"({"metadata":{"name":"a","managedFields":)" + entries + "}}";
    };
    QTest::newRow("managedFields plain") << managed(
        R"([{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},)"
        R"("f:app":{}}},"f:spec":{"f:ports":{".":{},"k:{\"name\":\"http\"}":{".":{},"f:port":{}}}}},)"
        R"("manager":"kubectl","operation":"Update","time":"2026-12-05T01:00:00Z"},)"
        R"({"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:ready":{}}},)"
        R"("manager":"ctl","operation":"Apply","subresource":"status","time":"2026-12-05T01:00:01Z"}])")
                                         << false;
    QTest::newRow("managedFields empty and null")
        << managed(R"([{"fieldsV1":{},"manager":"m"},{"fieldsV1":null,"time":""}])") << false;
    QTest::newRow("managedFields null") << managed("null") << false;
    QTest::newRow("managedFields out of order")
        << managed(R"([{"fieldsV1":{"f:spec":{"f:b":{},"f:a":{}}},"manager":"m"}])") << false;
    QTest::newRow("managedFields repeated name")
        << managed(R"([{"fieldsV1":{"f:spec":{"f:a":{},"f:a":{"f:x":{}}}},"manager":"m"}])")
        << false;
    QTest::newRow("managedFields whitespace")
        << managed(R"([{"fieldsV1":{ "f:spec":{"f:a":{}}},"manager":"m"}])") << false;
    QTest::newRow("managedFields escapes")
        << managed(R"([{"fieldsV1":{"f:spec":{"k:{\"n\":\"\u003c\"}":{}}},"manager":"m\u00e9"}])")
        << false;
    QTest::newRow("managedFields numeric keys") << managed(
        R"([{"fieldsV1":{"f:p":{"k:{\"port\":80}":{},"k:{\"port\":443}":{}}},"manager":"m"}])")
                                                << false;
    QTest::newRow("managedFields values not objects") << managed(
        R"([{"fieldsV1":{"f:a":1,"f:b":"x"},"manager":"m"},{"fieldsV1":[],"time":"bad"},7,)"
        R"({"manager":1,"operation":null,"subresource":"status","subresource":"x"}])")
                                                      << false;
    QTest::newRow("managedFields not an array") << managed(R"({"manager":"m"})") << false;
    QTest::newRow("managedFields twice") << QByteArray(
        R"({"metadata":{"name":"a","managedFields":[],"managedFields":[{"manager":"m"}]}})")
                                         << false;
    QTest::newRow("plain shape") << QByteArray(
        R"({"apiVersion":"v1","kind":"K","metadata":{"creationTimestamp":"2026-11-30T10:09:46Z",)"
        R"("finalizers":["f/x","g"],"generation":1,"labels":{"t":"0","u":"1","t":"x","":"e"},)"
        R"("name":"app-0","namespace":"bench","resourceVersion":"8","uid":"8959"},"spec":{"r":1},)"
        R"("status":{"observedGeneration":1,"phase":"Up","conditions":[{"type":"Ready",)"
        R"("status":"False","reason":"W","lastTransitionTime":"2026-11-30T07:00:00Z"},)"
        R"({"type":"Degraded","status":null}]}})")
                                 << false;
    QTest::newRow("plain, nulls and -0") << QByteArray(
        R"({"metadata":{"name":"n","generation":-0,"creationTimestamp":""},"status":null,"kind":"K"})")
                                         << false;
    QTest::newRow("plain, null members") << QByteArray(
        R"({"metadata":{"name":"n","generation":null},"status":{"conditions":null,"observedGeneration":null}})")
                                         << false;
    QTest::newRow("repeated name")
        << QByteArray(R"({"metadata":{"name":"a","name":"b"}})") << false;
    QTest::newRow("repeated metadata")
        << QByteArray(R"({"metadata":{"name":"a"},"metadata":{"namespace":"b"}})") << false;
    QTest::newRow("bad creation time")
        << QByteArray(R"({"metadata":{"name":"a","creationTimestamp":"yesterday"}})") << false;
    QTest::newRow("deletion") << QByteArray(
        R"({"metadata":{"name":"a","deletionTimestamp":"2026-11-30T07:00:00Z","finalizers":[]}})")
                              << false;
    QTest::newRow("condition not an object")
        << QByteArray(R"({"metadata":{"name":"a"},"status":{"conditions":["x",{"type":"Ready"}]}})")
        << false;
    QTest::newRow("generation with a fraction")
        << QByteArray(R"({"metadata":{"name":"a","generation":1.5}})") << false;
    QTest::newRow("no name") << QByteArray(R"({"metadata":{"namespace":"a"}})") << false;
    QTest::newRow("not an object") << QByteArray(R"([1,2])") << false;
    QTest::newRow("invalid") << QByteArray(R"({"metadata":{"name":"a"},"spec":{]})") << false;
    QTest::newRow("truncated") << QByteArray(R"({"metadata":{"name":"a"},"spec":{)") << false;
    // What only the small tree reads: escapes and non-ASCII text where the summary reads, a
    // deletion, repeated members, projected values taken whole, odd shapes on the way.
    for (const bool project : { false, true }) {
        const QString suffix = project ? u" (mapping paths)"_s : QString();
        const auto row = [&](const QString &name, const QByteArray &bytes) {
            QTest::newRow(qPrintable(name + suffix)) << bytes << project;
        };
        row(u"escaped names"_s,
            R"({"k\u0069nd":"K","metadata":{"n\u0061me":"a","l\u0061bels":)"
            R"({"x\/y":"\u00e9"}},"st\u0061tus":{"ph\u0061se":"Up"}})");
        row(u"non-ASCII values"_s,
            "{\"metadata\":{\"name\":\"caf\xc3\xa9\",\"uid\":\"\xe2\x82\xac\"},"
            "\"status\":{\"phase\":\"\xf0\x9f\x98\x80\"}}");
        row(u"deletion with escapes"_s,
            R"({"metadata":{"name":"a","deletionTimestamp":"2026-11-30T07:00:00\u005a"}})");
        row(u"empty deletion"_s, R"({"metadata":{"name":"a","deletionTimestamp":""}})");
        row(u"deletion not a string"_s, R"({"metadata":{"name":"a","deletionTimestamp":5}})");
        row(u"repeated status, object then string"_s,
            R"({"metadata":{"name":"a"},"status":{"x":1,"x":2},"status":"gone"})");
        row(u"repeated status, string then object"_s,
            R"({"metadata":{"name":"a"},"status":"x","status":{"phase":"Up","phase":"Down"}})");
        row(u"metadata array after object"_s,
            R"({"metadata":{"name":"a"},"metadata":[{"name":"b"}]})");
        row(u"metadata scalar"_s, R"({"metadata":"a"})");
        row(u"status array, then object"_s,
            R"({"metadata":{"name":"a"},"status":[1],"status":{"phase":"x"}})");
        row(u"projected values whole"_s,
            R"({"metadata":{"name":"a"},"status":{"history":[{"id":1},{"id":2}],)"
            R"("sync":{"status":"Synced","n":{"deep":[1,2,{"k":"\u00e9"}]}},)"
            R"("health":{"status":{"not":"a string"}},"phase":1.5e300}})");
        row(u"repeated spec replicas"_s,
            R"({"metadata":{"name":"a"},"spec":{"replicas":3,"replicas":4}})");
        row(u"labels repeated and odd"_s,
            R"({"metadata":{"name":"a","labels":{"a":"1","a":"2","b":null,"c":["x"]},)"
            R"("finalizers":["x",1,"y"]}})");
        row(u"byte order mark"_s, "\xEF\xBB\xBF{\"metadata\":{\"name\":\"a\"}}");
        row(u"half a byte order mark"_s, "\xEF\xBB{\"metadata\":{\"name\":\"a\"}}");
        row(u"whitespace around"_s, " \t\r\n{\"metadata\":{\"name\":\"a\"}} \n");
        row(u"trailing garbage"_s, R"({"metadata":{"name":"a"}} x)");
        row(u"two objects"_s, R"({"metadata":{"name":"a"}}{})");
        row(u"empty"_s, "");
        row(u"only whitespace"_s, "  ");
        row(u"number then more"_s, "1 2");
        row(u"leading zero"_s, "01");
        row(u"bad literal"_s, "tru");
        row(u"string"_s, R"("text")");
        row(u"unterminated string"_s, R"("text)");
        row(u"null"_s, "null");
        row(u"invalid escape in a name"_s, R"({"metadata":{"n\qme":"a"}})");
        row(u"lone surrogate in a kept value"_s, R"({"metadata":{"name":"\ud800"}})");
        row(u"control character"_s, "{\"metadata\":{\"name\":\"a\x01\"}}");
        // Nesting at Go's bound: containers 10000 deep pass, 10001 do not; a scalar right below
        // the deepest container passes.
        for (const int depth : { 9999, 10000, 10001 }) {
            const QByteArray open(depth - 2, '[');
            const QByteArray close(depth - 2, ']');
            row(u"spec nested %1 deep"_s.arg(depth),
                R"({"metadata":{"name":"a"},"spec":{"x":)" + open + "1" + close + "}}");
            row(u"labels nested %1 deep"_s.arg(depth),
                R"({"metadata":{"name":"a","labels":)" + open + close + "}}");
            row(u"status nested %1 deep"_s.arg(depth),
                R"({"metadata":{"name":"a"},"status":{"history":)" + open + close + "}}");
        }
        row(u"too deep, then invalid"_s,
            R"({"metadata":{"name":"a"},"spec":)" + QByteArray(10001, '[') + "}");
        row(u"invalid, then too deep"_s,
            R"({"metadata":{"name":"a"},"x":tru,"spec":)" + QByteArray(10001, '[') + "}");
    }
}

void tst_ListPipeline::summarizerMatchesReference()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, projectStatus);
    LifecycleMapping mapping = LifecycleMapping::defaults();
    if (projectStatus) {
        // Deeper paths, a whole array, and paths through arrays and absent members.
        mapping.healthPath = u"status.health.status"_s;
        mapping.statusFields = { u"status.sync"_s,
                                 u".status.history"_s,
                                 u"status.missing.field"_s,
                                 u"spec.replicas"_s,
                                 u"status.phase"_s };
    }
    const ObjectSummarizer summarizer(mapping);
    const auto fast = summarizer.summarize(bytes);
    const auto reference = reconscope::tests::referenceSummary(bytes, mapping);
    QCOMPARE(fast.ok(), reference.ok());
    // Interning as it reads (twice: the second time from the thread's cache) changes nothing.
    StringPool strings;
    for (int pass = 0; pass < 2; ++pass) {
        const auto interned = summarizer.summarize(bytes, &strings);
        QCOMPARE(interned.ok(), reference.ok());
        if (interned.ok())
            compareSummaries(*interned, *reference);
    }
    if (!reference.ok()) {
        QCOMPARE(fast.error().message, reference.error().message);
        return;
    }
    compareSummaries(*fast, *reference);
}

// Creation times met in a row (the same second again, another, an unreadable one, the first
// again) are each read as the reference reader reads them.
void tst_ListPipeline::summarizerTimestampsInARow()
{
    const ObjectSummarizer summarizer(LifecycleMapping::defaults());
    const auto object = [](const char *time) {
        return QByteArray(R"({"metadata":{"name":"a","creationTimestamp":")") + time + R"("}})";
    };
    for (const char *time : { "2026-11-30T10:09:46Z",
                              "2026-11-30T10:09:46Z",
                              "2026-11-30T10:09:47+02:00",
                              "yesterday",
                              "2026-11-30T10:09:46Z" }) {
        const QByteArray bytes = object(time);
        const auto fast = summarizer.summarize(bytes);
        const auto reference
            = reconscope::tests::referenceSummary(bytes, LifecycleMapping::defaults());
        QCOMPARE(fast.ok(), reference.ok());
        if (reference.ok()) {
            QCOMPARE(fast->creationTimestamp.isValid(), reference->creationTimestamp.isValid());
            QCOMPARE(fast->creationTimestamp, reference->creationTimestamp);
            QCOMPARE(fast->creationTimestamp.offsetFromUtc(),
                     reference->creationTimestamp.offsetFromUtc());
        }
    }
}

void tst_ListPipeline::streamDecoderAnySplit()
{
    QList<QByteArray> items;
    for (int i = 0; i < 40; ++i)
        items << object("app-" + QByteArray::number(i), 100 + i, i * 37);
    items << "{}"
          << R"({"metadata":{"name":"nested","x":[[[{"y":"]}"}]]]}})";
    const QByteArray body = "  " + listBody(items, 555, "tok\\\"en") + "\n";
    ListPage reference;
    QString error;
    QVERIFY2(decodeListPage(body, &reference, &error), qPrintable(error));
    QCOMPARE(reference.items.size(), items.size());

    // Fed as views, or read from a device (what the REST client does) chunk by chunk.
    const auto decodeSplit = [&](const QList<qsizetype> &cuts, bool fromDevice = false) {
        QList<QByteArray> got;
        ListStreamDecoder decoder([&got](QByteArrayView item) { got << item.toByteArray(); });
        const auto feed = [&](QByteArrayView chunk) {
            if (!fromDevice) {
                decoder.feed(chunk);
                return;
            }
            QBuffer device;
            device.setData(chunk.toByteArray());
            device.open(QIODevice::ReadOnly);
            decoder.feed(&device);
            QVERIFY(device.atEnd());
        };
        qsizetype at = 0;
        for (const qsizetype cut : cuts) {
            feed(QByteArrayView(body).sliced(at, cut - at));
            at = cut;
        }
        feed(QByteArrayView(body).sliced(at));
        if (!decoder.finish())
            return QString(u"error: "_s + decoder.errorString());
        if (got != reference.items)
            return u"items differ"_s;
        if (decoder.resourceVersion() != reference.resourceVersion
            || decoder.continueToken() != reference.continueToken
            || decoder.kind() != reference.kind) {
            return u"metadata differs"_s;
        }
        return QString();
    };
    // One cut at every byte boundary, and the whole body one byte at a time.
    for (qsizetype cut = 0; cut <= body.size(); ++cut) {
        QCOMPARE(decodeSplit({ cut }), QString());
        QCOMPARE(decodeSplit({ cut }, true), QString());
    }
    QList<qsizetype> everyByte;
    for (qsizetype cut = 1; cut < body.size(); ++cut)
        everyByte << cut;
    QCOMPARE(decodeSplit(everyByte), QString());
    QCOMPARE(decodeSplit(everyByte, true), QString());
    QCOMPARE(reference.continueToken, u"tok\"en"_s);
}

void tst_ListPipeline::streamDecoderNumberCutByAChunk()
{
    // A number ending where a chunk ends may go on in the next one (fuzz_watchdecoder: a member
    // "4141" cut after "41" was taken as 41 and the list then refused).
    const QByteArray body
        = R"({"t":4141,"items":[12,-345,{"a":1}],"metadata":{"resourceVersion":"7"}})";
    for (qsizetype cut = 1; cut < body.size(); ++cut) {
        QList<QByteArray> got;
        ListStreamDecoder decoder([&got](QByteArrayView item) { got << item.toByteArray(); });
        decoder.feed(QByteArrayView(body).first(cut));
        decoder.feed(QByteArrayView(body).sliced(cut));
        QVERIFY2(decoder.finish(),
                 qPrintable(u"cut at %1: %2"_s.arg(cut).arg(decoder.errorString())));
        QCOMPARE(got, (QList<QByteArray>{ "12", "-345", R"({"a":1})" }));
        QCOMPARE(decoder.resourceVersion(), u"7"_s);
    }
}

void tst_ListPipeline::streamDecoderErrors_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("itemsOk");
    QTest::newRow("items null") << QByteArray(
        R"({"items":null,"metadata":{"resourceVersion":"1"}})")
                                << -1;
    QTest::newRow("empty list") << QByteArray(R"({"items":[],"metadata":{}})") << -1;
    QTest::newRow("empty object") << QByteArray("{}") << -1;
    QTest::newRow("escaped member name") << QByteArray(R"({"k\u00e9y":1,"items":[]})") << -1;
    QTest::newRow("bad escape in member name") << QByteArray(R"({"k\x":1,"items":[]})") << 0;
    QTest::newRow("empty object, spaced") << QByteArray(" { \n } \n") << -1;
    QTest::newRow("bad item") << QByteArray(R"({"items":[{]}})") << 0;
    QTest::newRow("items not an array") << QByteArray(R"({"items":{"a":1}})") << 0;
    QTest::newRow("not json") << QByteArray("404 page not found\n") << 0;
    QTest::newRow("truncated") << QByteArray(R"({"items":[{"a":1},{"b":)") << 0;
    QTest::newRow("unterminated list") << QByteArray(R"({"items":[{"a":1}])") << 0;
    QTest::newRow("trailing garbage") << QByteArray(R"({"items":[]} x)") << 0;
    QTest::newRow("missing comma") << QByteArray(R"({"items":[{"a":1} {"b":2}]})") << 0;
}

void tst_ListPipeline::streamDecoderErrors()
{
    QFETCH(QByteArray, body);
    QFETCH(int, itemsOk);
    ListPage page;
    QString error;
    const bool reference = decodeListPage(body, &page, &error);
    QCOMPARE(reference, itemsOk < 0);
    for (qsizetype cut = 0; cut <= body.size(); ++cut) {
        ListStreamDecoder decoder([](QByteArrayView) {});
        decoder.feed(QByteArrayView(body).first(cut));
        decoder.feed(QByteArrayView(body).sliced(cut));
        QCOMPARE(decoder.finish(), reference);
        QCOMPARE(decoder.hasError(), !reference);
    }
}

// A long list read chunk by chunk (as the REST client does) goes through one buffer: once it has
// grown to a chunk's size it stays put, instead of a fresh allocation (and fresh pages) per chunk.
void tst_ListPipeline::streamDecoderReusesItsBuffer()
{
    QByteArray body = R"({"kind":"CustomAppList","metadata":{"resourceVersion":"9"},"items":[)";
    const QByteArray item = R"({"metadata":{"name":"n","namespace":"ns"},"spec":{"text":")"
        + QByteArray(1000, 'x') + R"("}})";
    constexpr int Items = 400;
    for (int i = 0; i < Items; ++i)
        body += (i ? "," : "") + item;
    body += "]}";
    constexpr qsizetype Chunk = 16 * 1024;
    qsizetype items = 0;
    ListStreamDecoder decoder([&items, &item](QByteArrayView got) {
        QCOMPARE(got, QByteArrayView(item));
        ++items;
    });
    QSet<const char *> addresses;
    for (qsizetype at = 0; at < body.size(); at += Chunk) {
        QBuffer device;
        device.setData(body.mid(at, Chunk));
        device.open(QIODevice::ReadOnly);
        decoder.feed(&device);
        QVERIFY(device.atEnd());
        if (at >= 2 * Chunk)
            addresses << decoder.bufferAddress();
        QVERIFY(decoder.pendingBytes() < item.size() + Chunk);
    }
    QVERIFY(decoder.finish());
    QCOMPARE(items, Items);
    QCOMPARE(decoder.resourceVersion(), u"9"_s);
    QCOMPARE(addresses.size(), 1);
}

// jsonscan steps over two-character escapes inside its sixteen-byte blocks: escapes (valid or
// not, alone or in a row, ending a string or cut by a block's end) at every offset within and
// across blocks are judged as nlohmann judges them.
// Chunks handed over as views are decoded where they lie: an item wholly inside a chunk is
// handed out from the chunk's own bytes (not copied first), one cut by a chunk's end is completed
// from the next; every item comes out once, in order, whatever the cuts.
void tst_ListPipeline::streamDecoderDecodesChunksInPlace()
{
    QByteArray body = R"({"kind":"CustomAppList","metadata":{"resourceVersion":"9"},"items":[)";
    QList<QByteArray> items;
    for (int i = 0; i < 300; ++i) {
        items << R"({"metadata":{"name":"n)" + QByteArray::number(i)
                + R"("},"spec":{"text":"a \"quoted\" )" + QByteArray(i % 50 * 40, 'x') + R"("}})";
        body += (i ? " ,\n " : "") + items.last();
    }
    body += "]}\n";
    for (const qsizetype chunkSize : { 1, 7, 4096, 5000, 65536 }) {
        QList<QByteArray> got;
        qsizetype inPlace = 0;
        QByteArrayView chunk;
        ListStreamDecoder decoder([&](QByteArrayView item) {
            got << item.toByteArray();
            if (item.data() >= chunk.data() && item.data() + item.size() <= chunk.end())
                ++inPlace;
        });
        for (qsizetype at = 0; at < body.size(); at += chunkSize) {
            const QByteArray copy = body.mid(at, chunkSize); // a chunk's own bytes
            chunk = copy;
            decoder.feed(chunk);
        }
        QVERIFY(decoder.finish());
        QCOMPARE(got, items);
        QCOMPARE(decoder.resourceVersion(), u"9"_s);
        if (chunkSize == 65536)
            QVERIFY2(inPlace > 200, qPrintable(QString::number(inPlace)));
    }
}

void tst_ListPipeline::scannerEscapesAtEveryOffset()
{
    const QList<QByteArray> pieces = {
        R"(\")",  R"(\\)",     R"(\/)",   R"(\b)",  R"(\f)",   R"(\n)",     R"(\r)",
        R"(\t)",  R"(\u00e9)", R"(\\\")", R"(\\")", R"(\x)",   R"(\u12g4)", R"(\u12)",
        "\\\x01", "\x01",      R"(")",    R"(\)",   R"(\"\")", R"(\\\\)",
    };
    int checked = 0;
    for (const QByteArray &first : pieces) {
        for (const QByteArray &second : { QByteArray(), QByteArray(R"(\")"), QByteArray("\\x") }) {
            for (int offset = 0; offset < 40; ++offset) {
                for (const int gap : { 0, 1, 13, 14, 15, 16 }) {
                    const QByteArray text = "[\"" + QByteArray(offset, 'a') + first
                        + QByteArray(gap, 'b') + second + QByteArray(20, 'c') + "\"]";
                    const bool expected = nlohmann::json::accept(text.cbegin(), text.cend());
                    if (reconscope::models::jsonscan::isValid(text) != expected)
                        QFAIL(text.constData());
                    ++checked;
                }
            }
        }
    }
    QCOMPARE(checked, 20 * 3 * 40 * 6);
}

void tst_ListPipeline::preparedListEqualsPlain_data()
{
    QTest::addColumn<bool>("pages");
    QTest::addColumn<bool>("expiredContinue");
    QTest::newRow("one answer") << false << false;
    QTest::newRow("pages") << true << false;
    QTest::newRow("pages, continue expired") << true << true;
}

// The same server answers (a list of 1,300 objects in one answer or in pages, a continue token
// that expires, then a watch that ends in 410 and a relist with objects gone and changed), once
// with the plain list and once with a preparer: the same deltas, in the same order, with the same
// bytes.
void tst_ListPipeline::preparedListEqualsPlain()
{
    QFETCH(bool, pages);
    QFETCH(bool, expiredContinue);
    QList<QByteArray> first;
    for (int i = 0; i < 1300; ++i)
        first << object("app-" + QByteArray::number(10000 + i), 10 + i, (i % 7) * 300);
    QList<QByteArray> second;
    for (int i = 0; i < 1300; i += 3)
        second << object("app-" + QByteArray::number(10000 + i), i % 2 ? 5000 + i : 10 + i);

    const auto run = [&](bool prepared) {
        TestServer server;
        int lists = 0;
        int watches = 0;
        server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
            if (request.query.hasQueryItem(u"watch"_s)) {
                answerWatch(socket, ++watches);
                return;
            }
            ++lists;
            const bool relist = watches > 0;
            const QList<QByteArray> &items = relist ? second : first;
            const int rv = relist ? 9000 : 2000;
            if (!pages || relist) {
                TestServer::respond(socket, 200, "application/json", listBody(items, rv));
                return;
            }
            const QString token = request.queryValue(u"continue"_s);
            if (expiredContinue && token == u"p2"_s && lists == 2) {
                TestServer::respond(
                    socket,
                    410,
                    "application/json",
                    R"j({"kind":"Status","apiVersion":"v1","metadata":{"continue":"p3"},"status":"Failure","message":"continue expired","reason":"Expired","code":410})j");
                return;
            }
            if (request.queryValue(u"limit"_s) == u"0"_s
                || !request.query.hasQueryItem(u"limit"_s)) {
                TestServer::respond(socket, 200, "application/json", listBody(items, rv));
                return;
            }
            const int page = token.isEmpty() ? 0 : token.mid(1).toInt() - 1;
            const int size = 500;
            const QList<QByteArray> slice = items.mid(page * size, size);
            const QByteArray next = (page + 1) * size < items.size()
                ? "p" + QByteArray::number(page + 2)
                : QByteArray();
            TestServer::respond(socket, 200, "application/json", listBody(slice, rv, next));
        };
        ReflectorOn on(server);
        Reflector &reflector = on.reflector;
        if (prepared) {
            reflector.setPreparer(keepBytes);
        }
        QStringList out;
        connect(&reflector, &Reflector::deltasReceived, this, [&](const QList<Delta> &deltas) {
            for (const Delta &delta : deltas) {
                QByteArray bytes = delta.object;
                if (delta.prepared) {
                    QVERIFY(delta.object.isEmpty());
                    bytes = static_cast<const KeptBytes &>(*delta.prepared).bytes;
                }
                out << (delta.type == Delta::Type::Upsert ? u"+"_s : u"-"_s) + delta.meta.key()
                        + u'@' + delta.meta.resourceVersion + u' ' + QString::number(qHash(bytes));
            }
        });
        reflector.start();
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(watches >= 2, 20000);
        }();
        [&] {
            QTRY_COMPARE_WITH_TIMEOUT(
                reflector.state().phase, ReflectorState::Phase::Watching, 20000);
        }();
        reflector.stop();
        return QPair<QStringList, int>(out, lists);
    };
    const auto plain = run(false);
    const auto prepared = run(true);
    QCOMPARE(plain.first.size(), 1300 + 1300);
    QCOMPARE(prepared.first, plain.first);
    QCOMPARE(prepared.second, plain.second);
    QVERIFY(std::any_of(plain.first.cbegin(), plain.first.cend(), [](const QString &line) {
        return line.startsWith(u"-default/app-10001@11 "_s);
    }));
    QCOMPARE(plain.second, pages ? 4 : 2);
}

void tst_ListPipeline::progressiveFirstList_data()
{
    QTest::addColumn<bool>("restart");
    QTest::newRow("one answer, sent in two parts") << false;
    QTest::newRow("pages, continue expired, restarted list lacks objects") << true;
}

// A first list with setProgressiveFirstList reaches the consumer in several deltasReceived
// before listSynced (the server holds back the rest of the list until the first ones are in),
// and the store it builds equals the one the whole-list delivery builds. When the list starts
// over (an expired continue token, held until objects of the first page were delivered) and the
// second attempt lacks objects already delivered, they come as deletes before listSynced. The
// relist after a watch's 410 is delivered whole, in one signal.
void tst_ListPipeline::progressiveFirstList()
{
    QFETCH(bool, restart);
    QList<QByteArray> first;
    for (int i = 0; i < 1300; ++i)
        first << object("app-" + QByteArray::number(10000 + i), 10 + i, (i % 5) * 200);
    // What the restarted list holds: app-10001 and app-10002 gone, app-10003 changed.
    QList<QByteArray> restarted = first;
    restarted.removeAt(1);
    restarted.removeAt(1);
    restarted[1] = object("app-10003", 4000);
    QList<QByteArray> relisted;
    for (int i = 0; i < 1300; i += 4)
        relisted << object("app-" + QByteArray::number(10000 + i), i % 8 ? 10 + i : 6000 + i);

    struct Outcome
    {
        QList<int> signalsPerSync; // deltasReceived signals before each listSynced
        QList<QMap<QString, QString>> stores; // the consumer's store at each listSynced
        QStringList deletedBeforeFirstSync;
        int lists = 0;
    };
    const auto run = [&](bool progressive) {
        Outcome outcome;
        TestServer server;
        int watches = 0;
        int delivered = 0; // deltasReceived signals so far
        QPointer<QTcpSocket> held;
        std::function<void(QTcpSocket *)> release;
        const auto holdUntilDelivered
            = [&](QTcpSocket *socket, std::function<void(QTcpSocket *)> r) {
                  if (!progressive || delivered > 0) {
                      r(socket);
                      return;
                  }
                  held = socket;
                  release = std::move(r);
              };
        server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
            if (request.query.hasQueryItem(u"watch"_s)) {
                answerWatch(socket, ++watches);
                return;
            }
            ++outcome.lists;
            if (watches > 0) {
                TestServer::respond(socket, 200, "application/json", listBody(relisted, 9000));
                return;
            }
            if (!restart) {
                // The first 700 items, then the rest once something was delivered.
                const QByteArray body = listBody(first, 2000);
                const qsizetype split = body.indexOf(first[700]);
                TestServer::startStream(socket);
                TestServer::writeChunk(socket, body.left(split));
                holdUntilDelivered(socket, [body, split](QTcpSocket *s) {
                    TestServer::writeChunk(s, body.mid(split));
                    TestServer::endStream(s);
                });
                return;
            }
            const QString token = request.queryValue(u"continue"_s);
            if (token.isEmpty() && request.queryValue(u"limit"_s) == u"500"_s) {
                TestServer::respond(
                    socket, 200, "application/json", listBody(first.mid(0, 500), 2000, "p2"));
                return;
            }
            if (token == u"p2"_s) {
                holdUntilDelivered(socket, [](QTcpSocket *s) {
                    TestServer::respond(
                        s,
                        410,
                        "application/json",
                        R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"continue expired","reason":"Expired","code":410})j");
                });
                return;
            }
            // The list started over, in one go.
            QVERIFY(!request.query.hasQueryItem(u"limit"_s));
            TestServer::respond(socket, 200, "application/json", listBody(restarted, 2100));
        };
        ReflectorOn on(server);
        Reflector &reflector = on.reflector;
        reflector.setPreparer(keepBytes);
        reflector.setProgressiveFirstList(progressive);
        QMap<QString, QString> store;
        int signalsSinceSync = 0;
        connect(&reflector, &Reflector::deltasReceived, this, [&](const QList<Delta> &deltas) {
            ++delivered;
            ++signalsSinceSync;
            for (const Delta &delta : deltas) {
                const QString key = delta.meta.key();
                if (delta.type == Delta::Type::Delete) {
                    QVERIFY(store.contains(key));
                    store.remove(key);
                    if (outcome.stores.isEmpty())
                        outcome.deletedBeforeFirstSync << key;
                    continue;
                }
                QVERIFY(delta.object.isEmpty());
                QVERIFY(delta.prepared);
                const QByteArray &bytes = static_cast<const KeptBytes &>(*delta.prepared).bytes;
                store.insert(key, delta.meta.resourceVersion + u' ' + QString::fromUtf8(bytes));
            }
            if (held) {
                release(held);
                held = nullptr;
            }
        });
        connect(&reflector, &Reflector::listSynced, this, [&](const QString &) {
            outcome.signalsPerSync << std::exchange(signalsSinceSync, 0);
            outcome.stores << store;
        });
        reflector.start();
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(watches >= 2 && outcome.stores.size() >= 2, 20000);
        }();
        reflector.stop();
        return outcome;
    };
    const auto expected = [](const QList<QByteArray> &items) {
        QMap<QString, QString> store;
        for (const QByteArray &item : items) {
            ObjectMeta meta;
            if (ObjectMeta::peek(item, &meta))
                store.insert(meta.key(), meta.resourceVersion + u' ' + QString::fromUtf8(item));
        }
        return store;
    };
    const Outcome whole = run(false);
    const Outcome progressive = run(true);
    QCOMPARE(whole.stores.size(), 2);
    QCOMPARE(progressive.stores.size(), 2);
    QCOMPARE(whole.stores[0], expected(restart ? restarted : first));
    QCOMPARE(progressive.stores[0], whole.stores[0]);
    QCOMPARE(whole.stores[1], expected(relisted));
    QCOMPARE(progressive.stores[1], whole.stores[1]);
    // Whole: one signal per list. Progressive: the first list in several, the relist in one.
    QCOMPARE(whole.signalsPerSync, QList<int>({ 1, 1 }));
    QVERIFY2(progressive.signalsPerSync[0] >= 2,
             qPrintable(QString::number(progressive.signalsPerSync[0])));
    QCOMPARE(progressive.signalsPerSync[1], 1);
    QVERIFY(whole.deletedBeforeFirstSync.isEmpty());
    if (restart) {
        QCOMPARE(progressive.deletedBeforeFirstSync,
                 QStringList({ u"default/app-10001"_s, u"default/app-10002"_s }));
    } else {
        QVERIFY(progressive.deletedBeforeFirstSync.isEmpty());
    }
    QCOMPARE(progressive.lists, whole.lists);
    QCOMPARE(whole.lists, restart ? 4 : 2);
}

// The StringPool hands out one instance per text (also through each thread's cache, and never
// another pool's), and interning a summary keeps its values: labels in order, keys and values
// shared between summaries.
void tst_ListPipeline::stringPoolSharesEqualStrings()
{
    StringPool pool;
    StringPool other;
    const auto fresh = [](const char *text) {
        return QString::fromLatin1(text);
    };
    QString a = fresh("frontend");
    QString b = fresh("frontend");
    QVERIFY(a.constData() != b.constData());
    pool.intern(a);
    pool.intern(b); // found in the pool (and now cached)
    QCOMPARE(b.constData(), a.constData());
    QString c = fresh("frontend");
    pool.intern(c); // from this thread's cache
    QCOMPARE(c.constData(), a.constData());
    QString d = fresh("frontend");
    other.intern(d); // another pool: its own instance, not the cached one of `pool`
    QCOMPARE(d, a);
    QVERIFY(d.constData() != a.constData());
    QString e = fresh("frontend");
    other.intern(e);
    QCOMPARE(e.constData(), d.constData());
    // Strings met from other threads come out as the same instance.
    QString fromThread;
    std::unique_ptr<QThread> thread(QThread::create([&] {
        fromThread = fresh("frontend");
        pool.intern(fromThread);
        QString again = fresh("frontend");
        pool.intern(again);
        fromThread = again;
    }));
    thread->start();
    QVERIFY(thread->wait(20000));
    QCOMPARE(fromThread.constData(), a.constData());

    ObjectSummary first;
    first.apiVersion = fresh("v1");
    first.labels = { { fresh("tier"), fresh("web") },
                     { fresh("app"), fresh("one") },
                     { fresh("team"), fresh("t") } };
    ObjectSummary second;
    second.labels = { { fresh("tier"), fresh("web") },
                      { fresh("app"), fresh("two") },
                      { fresh("team"), fresh("t") } };
    second.apiVersion = fresh("v1");
    const QMap<QString, QString> firstLabels = first.labels;
    pool.intern(first);
    pool.intern(second);
    QCOMPARE(first.labels, firstLabels);
    QCOMPARE(first.labels.keys(), QStringList({ u"app"_s, u"team"_s, u"tier"_s }));
    QCOMPARE(second.labels.value(u"app"_s), u"two"_s);
    QCOMPARE(second.apiVersion.constData(), first.apiVersion.constData());
    const auto keyOf = [](const ObjectSummary &summary, const QString &key) {
        return summary.labels.find(key).key().constData();
    };
    QCOMPARE(keyOf(second, u"tier"_s), keyOf(first, u"tier"_s));
    QCOMPARE(second.labels.value(u"tier"_s).constData(), first.labels.value(u"tier"_s).constData());
    QVERIFY(second.labels.value(u"app"_s).constData() != first.labels.value(u"app"_s).constData());

    // Latin-1 bytes: the same instances as the QStrings interned (met again: then from the
    // thread's cache of bytes), never another pool's; a text met once is not shared yet.
    QCOMPARE(pool.internLatin1("frontend").constData(), a.constData());
    QCOMPARE(pool.internLatin1("frontend").constData(), a.constData());
    QCOMPARE(other.internLatin1("frontend").constData(), d.constData());
    QCOMPARE(pool.internLatin1(QByteArrayView()), QString());
    const QString once = pool.internLatin1("backend");
    QCOMPARE(once, u"backend"_s);
    QString backend = fresh("backend");
    pool.intern(backend);
    QCOMPARE(backend.constData(), once.constData());
    QCOMPARE(pool.internLatin1("backend").constData(), once.constData());
    QString fromThreadBytes;
    std::unique_ptr<QThread> bytesThread(QThread::create([&] {
        fromThreadBytes = pool.internLatin1("frontend");
        fromThreadBytes = pool.internLatin1("frontend");
    }));
    bytesThread->start();
    QVERIFY(bytesThread->wait(20000));
    QCOMPARE(fromThreadBytes.constData(), a.constData());

    // A summarizer interning as it reads shares what the pool shares, between two objects.
    const ObjectSummarizer summarizer(LifecycleMapping::defaults());
    const auto object = [](const char *name, const char *app) {
        return QByteArray(R"({"apiVersion":"v1","kind":"Thing","metadata":{"name":")") + name
            + R"(","namespace":"ns","labels":{"app":")" + app
            + R"(","tier":"web"},"finalizers":["f.io/x"]},"status":{"conditions":[{"type":"Ready","status":"True","reason":"Done","message":"ok"}]}})";
    };
    const auto one = summarizer.summarize(object("a", "one"), &pool);
    const auto two = summarizer.summarize(object("b", "two"), &pool);
    QVERIFY(one.ok() && two.ok());
    QCOMPARE(two->kind.constData(), one->kind.constData());
    QCOMPARE(two->namespaceName.constData(), one->namespaceName.constData());
    QCOMPARE(two->finalizers.value(0).constData(), one->finalizers.value(0).constData());
    QCOMPARE(keyOf(*two, u"tier"_s), keyOf(*one, u"tier"_s));
    QCOMPARE(two->labels.value(u"tier"_s).constData(), one->labels.value(u"tier"_s).constData());
    QCOMPARE(two->labels.value(u"app"_s), u"two"_s);
    QCOMPARE(two->conditions.value(0).reason.constData(),
             one->conditions.value(0).reason.constData());
    QCOMPARE(two->name, u"b"_s);
}

QTEST_GUILESS_MAIN(tst_ListPipeline)
#include "tst_listpipeline.moc"
