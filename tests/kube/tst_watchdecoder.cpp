#include "controller/kube/objectmeta.h"
#include "controller/kube/watchdecoder.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;

class tst_WatchDecoder final : public QObject
{
    Q_OBJECT

private slots:
    void decodesEventTypes();
    void everyByteBoundaryGivesIdenticalEvents();
    void byteByByte();
    void bookmarkOnlyCarriesResourceVersion();
    void objectMetaPeek_data();
    void objectMetaPeek();
    void error410IsExpired();
    void malformedLine_data();
    void malformedLine();
    void finishDecodesUnterminatedLastLine();
    void listPage();
    void deepNestingAndGarbage();
    void throughput();
};

namespace {

QByteArray sampleStream()
{
    return QByteArray(
               R"({"type":"ADDED","object":{"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":"caf\u00e9-app","namespace":"default","uid":"u1","resourceVersion":"11","generation":9007199254740993},"spec":{"note":"braces { } [ ] and \"quotes\" and \\ and \n","text":"Zürich ✓"}}})"
               "\n"
               R"({"type":"MODIFIED","object":{"kind":"CustomApp","metadata":{"name":"b","namespace":"ns2","resourceVersion":"12","deletionTimestamp":"2026-08-09T00:15:00Z"},"status":{"conditions":[{"type":"Ready","status":"True"}],"n":-1.5e3}}})"
               "\r\n"
               "\n"
               R"({"type":"BOOKMARK","object":{"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"resourceVersion":"15","annotations":{"k8s.io/initial-events-end":"true"}}}})"
               "\n"
               R"( { "type" : "DELETED" , "object" : { "metadata" : { "name" : "b" , "namespace" : "ns2", "resourceVersion" : "16" } } } )"
               "\n"
               R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (14)","reason":"Expired","code":410}})j")
        + "\n";
}

QString describe(const QList<WatchEvent> &events)
{
    QStringList parts;
    for (const auto &event : events)
        parts << WatchEvent::typeName(event.type) + u':' + QString::fromUtf8(event.object);
    return parts.join(u'|');
}

QByteArray customApp(int index)
{
    // About 3 KB, shaped like a real CR with status conditions.
    QByteArray object
        = R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":"app-)"
        + QByteArray::number(index) + R"(","namespace":"team-a","uid":"6f1c2a9e-3b1d-4c55-9a7e-)"
        + QByteArray::number(100000 + index) + R"(","resourceVersion":")"
        + QByteArray::number(1000 + index)
        + R"(","generation":3,"labels":{"app":"demo","tier":"backend"},"annotations":{"note":")"
        + QByteArray(1800, 'x')
        + R"("}},"spec":{"image":"registry.local/demo:1.2.3","replicas":3,"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},"status":{"observedGeneration":3,"conditions":[)";
    for (int c = 0; c < 4; ++c) {
        if (c)
            object += ',';
        object += R"({"type":"Cond)" + QByteArray::number(c)
            + R"(","status":"True","reason":"AsExpected","message":"All replicas are available and serving traffic","lastTransitionTime":"2026-08-09T00:15:00Z","observedGeneration":3})";
    }
    object += "]}}";
    return object;
}

} // namespace

void tst_WatchDecoder::decodesEventTypes()
{
    WatchDecoder decoder;
    decoder.feed(sampleStream());
    QVERIFY2(!decoder.hasError(), qPrintable(decoder.errorString()));
    const auto events = decoder.takeEvents();
    QCOMPARE(events.size(), 5);
    QCOMPARE(events[0].type, WatchEvent::Type::Added);
    QCOMPARE(events[1].type, WatchEvent::Type::Modified);
    QCOMPARE(events[2].type, WatchEvent::Type::Bookmark);
    QCOMPARE(events[3].type, WatchEvent::Type::Deleted);
    QCOMPARE(events[4].type, WatchEvent::Type::Error);

    ObjectMeta meta;
    QVERIFY(ObjectMeta::peek(events[0].object, &meta));
    QVERIFY(meta == events[0].meta);
    QCOMPARE(meta.name, u"café-app"_s);
    QCOMPARE(meta.namespace_, u"default"_s);
    QCOMPARE(meta.key(), u"default/café-app"_s);
    QCOMPARE(meta.resourceVersion, u"11"_s);
    // 2^53 + 1: exact only if never converted to double.
    QCOMPARE(meta.generation, std::int64_t(9007199254740993LL));
    QVERIFY(!meta.deleting);
    QVERIFY(events[0].object.contains("Zürich ✓"));

    QVERIFY(ObjectMeta::peek(events[1].object, &meta));
    QCOMPARE(meta.key(), u"ns2/b"_s);
    QVERIFY(meta.deleting);
    QVERIFY(ObjectMeta::peek(events[3].object, &meta));
    QCOMPARE(meta.resourceVersion, u"16"_s);
    QCOMPARE(decoder.pendingBytes(), 0);
}

void tst_WatchDecoder::everyByteBoundaryGivesIdenticalEvents()
{
    const QByteArray stream = sampleStream();
    WatchDecoder whole;
    whole.feed(stream);
    const QString expected = describe(whole.takeEvents());
    QVERIFY(!expected.isEmpty());

    for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
        WatchDecoder decoder;
        decoder.feed(QByteArrayView(stream).first(cut));
        decoder.feed(QByteArrayView(stream).sliced(cut));
        QVERIFY2(!decoder.hasError(), qPrintable(decoder.errorString()));
        QCOMPARE(describe(decoder.takeEvents()), expected);
    }
    // Two cuts: every pair would be quadratic; step the second cut through the whole stream.
    for (qsizetype first = 0; first < stream.size(); first += 37) {
        for (qsizetype second = first; second <= stream.size(); ++second) {
            WatchDecoder decoder;
            decoder.feed(QByteArrayView(stream).first(first));
            decoder.feed(QByteArrayView(stream).sliced(first, second - first));
            decoder.feed(QByteArrayView(stream).sliced(second));
            QCOMPARE(describe(decoder.takeEvents()), expected);
        }
    }
}

void tst_WatchDecoder::byteByByte()
{
    const QByteArray stream = sampleStream();
    WatchDecoder decoder;
    QList<WatchEvent> events;
    for (char c : stream) {
        decoder.feed(QByteArrayView(&c, 1));
        events += decoder.takeEvents();
    }
    WatchDecoder whole;
    whole.feed(stream);
    QCOMPARE(describe(events), describe(whole.takeEvents()));
}

void tst_WatchDecoder::bookmarkOnlyCarriesResourceVersion()
{
    WatchDecoder decoder;
    decoder.feed(
        R"({"type":"BOOKMARK","object":{"kind":"CustomApp","apiVersion":"G/v1","metadata":{"resourceVersion":"1234"}}})"
        "\n");
    const auto events = decoder.takeEvents();
    QCOMPARE(events.size(), 1);
    QCOMPARE(events[0].type, WatchEvent::Type::Bookmark);
    ObjectMeta meta;
    QVERIFY(ObjectMeta::peek(events[0].object, &meta));
    QCOMPARE(meta.resourceVersion, u"1234"_s);
    QVERIFY(meta.name.isEmpty());
}

void tst_WatchDecoder::objectMetaPeek_data()
{
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("key"); // namespace/name
    QTest::addColumn<QString>("resourceVersion");
    QTest::addColumn<bool>("deleting");
    QTest::newRow("metadata first")
        << QByteArray("{\"metadata\":{\"annotations\":{\"a\":\"{\\\"x\\\":[1]}\"},"
                      "\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"7\"},"
                      "\"spec\":{\"x\":[1,{\"y\":null}]}}")
        << true << u"n/a"_s << u"7"_s << false;
    QTest::newRow("metadata last, spaces")
        << QByteArray(" { \"kind\" : \"X\" , \"metadata\" : { \"name\" : \"b\" , "
                      "\"deletionTimestamp\" : \"2026-01-01T00:00:00Z\" } } ")
        << true << u"b"_s << QString() << true;
    QTest::newRow("no metadata") << QByteArray("{\"kind\":\"X\"}") << true << QString() << QString()
                                 << false;
    QTest::newRow("empty object") << QByteArray("{}") << true << QString() << QString() << false;
    QTest::newRow("the last metadata counts")
        << QByteArray("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},"
                      "\"metadata\":{\"name\":\"b\"}}")
        << true << u"b"_s << QString() << false;
    QTest::newRow("deletionTimestamp null")
        << QByteArray("{\"metadata\":{\"name\":\"a\",\"deletionTimestamp\":null}}") << true
        << u"a"_s << QString() << false;
    QTest::newRow("metadata null")
        << QByteArray("{\"metadata\":null}") << false << QString() << QString() << false;
    QTest::newRow("broken after metadata")
        << QByteArray("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":}}") << false << QString()
        << QString() << false;
    QTest::newRow("broken inside metadata")
        << QByteArray("{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\"}}}") << false << QString()
        << QString() << false;
    QTest::newRow("trailing text") << QByteArray("{\"metadata\":{\"name\":\"a\"}} x") << false
                                   << QString() << QString() << false;
    QTest::newRow("not an object") << QByteArray("[1]") << false << QString() << QString() << false;
    QTest::newRow("cut short") << QByteArray("{\"metadata\":{\"name\":\"a\"") << false << QString()
                               << QString() << false;
}

void tst_WatchDecoder::objectMetaPeek()
{
    QFETCH(QByteArray, object);
    QFETCH(bool, valid);
    ObjectMeta meta;
    meta.name = u"untouched"_s;
    QCOMPARE(ObjectMeta::peek(object, &meta), valid);
    if (!valid) {
        QCOMPARE(meta.name, u"untouched"_s);
        return;
    }
    QTEST(meta.key(), "key");
    QTEST(meta.resourceVersion, "resourceVersion");
    QTEST(meta.deleting, "deleting");
}

void tst_WatchDecoder::error410IsExpired()
{
    WatchDecoder decoder;
    decoder.feed(sampleStream());
    const auto events = decoder.takeEvents();
    const auto &error = events.last();
    QCOMPARE(error.type, WatchEvent::Type::Error);
    QCOMPARE(error.status.category, ApiError::Category::Status);
    QCOMPARE(error.status.code, 410);
    QCOMPARE(error.status.reason, u"Expired"_s);
    QVERIFY(error.status.isExpired());
    QCOMPARE(error.status.message, u"too old resource version: 5 (14)"_s);

    // An ERROR that is not 410 is not mistaken for an expiry.
    decoder.feed(
        R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","reason":"InternalError","code":500}})"
        "\n");
    const auto other = decoder.takeEvents();
    QCOMPARE(other.size(), 1);
    QVERIFY(!other[0].status.isExpired());
    QCOMPARE(other[0].status.code, 500);
}

void tst_WatchDecoder::malformedLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("errorPart");
    QTest::newRow("truncated") << QByteArray(R"({"type":"ADDED","object":{"metadata":)")
                               << u"malformed"_s;
    QTest::newRow("not json") << QByteArray("<html>502 Bad Gateway</html>") << u"malformed"_s;
    QTest::newRow("trailing garbage")
        << QByteArray(R"({"type":"ADDED","object":{}} x)") << u"malformed"_s;
    QTest::newRow("unknown type") << QByteArray(R"({"type":"CHANGED","object":{}})")
                                  << u"unknown watch event type"_s;
    QTest::newRow("no type") << QByteArray(R"({"object":{}})") << u"without a type"_s;
    QTest::newRow("no object") << QByteArray(R"({"type":"ADDED"})") << u"without an object"_s;
    QTest::newRow("object not an object")
        << QByteArray(R"({"type":"ADDED","object":"x"})") << u"without an object"_s;
    QTest::newRow("bad escape") << QByteArray(R"({"type":"ADDED","object":{"a":"\q"}})")
                                << u"malformed"_s;
    QTest::newRow("raw control char")
        << QByteArray("{\"type\":\"ADDED\",\"object\":{\"a\":\"x\ty\"}}") << u"malformed"_s;
    QTest::newRow("bad number") << QByteArray(R"({"type":"ADDED","object":{"a":01}})")
                                << u"malformed"_s;
    QTest::newRow("missing comma")
        << QByteArray(R"({"type":"ADDED" "object":{}})") << u"malformed"_s;
}

void tst_WatchDecoder::malformedLine()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, errorPart);
    const QByteArray good = R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                            "\n";
    WatchDecoder decoder;
    decoder.feed(good + line + '\n' + good);
    QVERIFY(decoder.hasError());
    QVERIFY2(decoder.errorString().contains(errorPart), qPrintable(decoder.errorString()));
    // The event before the bad line is delivered; nothing after it.
    QCOMPARE(decoder.takeEvents().size(), 1);
    decoder.feed(good);
    QCOMPARE(decoder.takeEvents().size(), 0);
    decoder.reset();
    decoder.feed(good);
    QCOMPARE(decoder.takeEvents().size(), 1);
}

void tst_WatchDecoder::finishDecodesUnterminatedLastLine()
{
    WatchDecoder decoder;
    decoder.feed(R"({"type":"DELETED","object":{"metadata":{"name":"a"}}})");
    QCOMPARE(decoder.takeEvents().size(), 0);
    decoder.finish();
    QCOMPARE(decoder.takeEvents().size(), 1);

    WatchDecoder cut;
    cut.feed(R"({"type":"DELETED","object":{"metad)");
    cut.finish();
    QVERIFY(cut.hasError());
}

void tst_WatchDecoder::listPage()
{
    const QByteArray body
        = R"({"apiVersion":"G/v1","items":[{"metadata":{"name":"a","resourceVersion":"3"}},{"metadata":{"name":"b","resourceVersion":"4"}}],"kind":"CustomAppList","metadata":{"continue":"tok\"en","resourceVersion":"9","remainingItemCount":1}})";
    ListPage page;
    QString error;
    QVERIFY2(decodeListPage(body, &page, &error), qPrintable(error));
    QCOMPARE(page.items.size(), 2);
    QCOMPARE(page.resourceVersion, u"9"_s);
    QCOMPARE(page.continueToken, u"tok\"en"_s);
    QCOMPARE(page.kind, u"CustomAppList"_s);
    QCOMPARE(page.items[1], QByteArray(R"({"metadata":{"name":"b","resourceVersion":"4"}})"));

    QVERIFY(decodeListPage(R"({"items":null,"metadata":{"resourceVersion":"1"}})", &page, &error));
    QCOMPARE(page.items.size(), 0);
    QVERIFY(!decodeListPage(R"({"items":[{]})", &page, &error));
    QVERIFY(!decodeListPage("404 page not found\n", &page, &error));
}

void tst_WatchDecoder::throughput()
{
    constexpr int Count = 20000;
    QByteArray stream;
    for (int i = 0; i < Count; ++i)
        stream += R"({"type":"MODIFIED","object":)" + customApp(i) + "}\n";
    const double averageSize = double(stream.size()) / Count;

    QElapsedTimer timer;
    timer.start();
    WatchDecoder decoder;
    int events = 0;
    // 16 KB network-sized chunks.
    for (qsizetype at = 0; at < stream.size(); at += 16384) {
        decoder.feed(
            QByteArrayView(stream).sliced(at, std::min<qsizetype>(16384, stream.size() - at)));
        for (const auto &event : decoder.takeEvents()) {
            QVERIFY(!event.meta.name.isEmpty());
            ++events;
        }
    }
    const auto elapsed = timer.nsecsElapsed();
    QCOMPARE(events, Count);
    qInfo("decoded %d events of %.0f bytes (with their metadata) in %.1f ms: %.0f events/s",
          Count,
          averageSize,
          elapsed / 1e6,
          Count / (elapsed / 1e9));
}

void tst_WatchDecoder::deepNestingAndGarbage()
{
    // Nesting far beyond any real object is refused without exhausting the stack.
    const QByteArray deep = R"({"type":"ADDED","object":{"a":)" + QByteArray(200000, '[')
        + QByteArray(200000, ']') + "}}\n";
    WatchDecoder decoder;
    decoder.feed(deep);
    QVERIFY(decoder.hasError());
    QCOMPARE(decoder.takeEvents().size(), 0);

    // Nesting that real objects have is fine.
    const QByteArray nested = R"({"type":"ADDED","object":{"a":)" + QByteArray(100, '[')
        + QByteArray(100, ']') + "}}\n";
    decoder.reset();
    decoder.feed(nested);
    QVERIFY(!decoder.hasError());
    QCOMPARE(decoder.takeEvents().size(), 1);

    // Random bytes: an error or events, never a crash; ObjectMeta::peek as well, and it reads the
    // metadata the decoder read.
    QRandomGenerator random(42);
    for (int round = 0; round < 500; ++round) {
        QByteArray line = sampleStream();
        const int flips = 1 + int(random.bounded(4));
        for (int i = 0; i < flips; ++i)
            line[random.bounded(int(line.size()))] = char(random.bounded(256));
        WatchDecoder fuzzed;
        fuzzed.feed(line);
        fuzzed.finish();
        for (const auto &event : fuzzed.takeEvents()) {
            ObjectMeta meta;
            QVERIFY(ObjectMeta::peek(event.object, &meta));
            QVERIFY(meta == event.meta); // read while decoding, as peek reads it
        }
    }
}

QTEST_GUILESS_MAIN(tst_WatchDecoder)
#include "tst_watchdecoder.moc"
