#include "controller/kube/watchdecoder.h"

#include <QTest>

using namespace Qt::StringLiterals;
using reconscope::controller::kube::decodeListPage;
using reconscope::controller::kube::decodeListPageShared;
using reconscope::controller::kube::ListPage;

// decodeListPageShared: the items of a list share the body's buffer (no second copy of a 50k-object
// list while it is decoded) and behave like independent byte arrays.
class tst_ListSharing : public QObject
{
    Q_OBJECT

private slots:
    void sameItemsAsCopies();
    void itemsOutliveTheBody();
    void writesDetach();
    void emptyAndMalformed();
};

namespace {

QByteArray listBody(int items)
{
    QByteArray body = R"({"apiVersion":"v1","items":[)";
    for (int i = 0; i < items; ++i) {
        if (i)
            body += ',';
        body += R"({"metadata":{"name":"o)" + QByteArray::number(i) + R"(","resourceVersion":")"
            + QByteArray::number(100 + i) + R"("},"n":)" + QByteArray::number(i) + '}';
    }
    body += R"(],"kind":"ThingList","metadata":{"resourceVersion":"777","continue":"abc"}})";
    return body;
}

} // namespace

void tst_ListSharing::sameItemsAsCopies()
{
    const QByteArray body = listBody(50);
    ListPage copied;
    ListPage shared;
    QString error;
    QVERIFY(decodeListPage(QByteArrayView(body), &copied, &error));
    QVERIFY(decodeListPageShared(body, &shared, &error));
    QCOMPARE(shared.items, copied.items);
    QCOMPARE(shared.items.size(), 50);
    QCOMPARE(shared.resourceVersion, u"777"_s);
    QCOMPARE(shared.continueToken, u"abc"_s);
    QCOMPARE(shared.kind, u"ThingList"_s);
    // Each item points into the body's buffer rather than a copy.
    for (const QByteArray &item : std::as_const(shared.items)) {
        QVERIFY(item.constData() >= body.constData());
        QVERIFY(item.constData() + item.size() <= body.constData() + body.size());
    }
}

void tst_ListSharing::itemsOutliveTheBody()
{
    ListPage page;
    QString error;
    {
        QByteArray body = listBody(3);
        QVERIFY(decodeListPageShared(body, &page, &error));
        body.fill('x'); // the body detaches: the items keep the original bytes
    }
    QCOMPARE(page.items.at(1), R"({"metadata":{"name":"o1","resourceVersion":"101"},"n":1})"_ba);
    QCOMPARE(page.items.at(2), R"({"metadata":{"name":"o2","resourceVersion":"102"},"n":2})"_ba);
}

void tst_ListSharing::writesDetach()
{
    const QByteArray body = listBody(3);
    ListPage page;
    QString error;
    QVERIFY(decodeListPageShared(body, &page, &error));
    QByteArray first = page.items.at(0);
    first.append(" tail");
    first[0] = '[';
    // Neither the body nor the neighbouring item saw the writes.
    QCOMPARE(page.items.at(1), R"({"metadata":{"name":"o1","resourceVersion":"101"},"n":1})"_ba);
    QVERIFY(body.contains(R"([{"metadata":{"name":"o0")"));
    QVERIFY(first.startsWith('['));
    QVERIFY(first.endsWith(" tail"));
    // The last reference to the buffer may grow in place without disturbing anything else.
    page.items.clear();
    QByteArray last;
    {
        ListPage alone;
        QVERIFY(decodeListPageShared(listBody(2), &alone, &error));
        last = alone.items.at(1);
    }
    last.append(",more");
    QCOMPARE(last, R"({"metadata":{"name":"o1","resourceVersion":"101"},"n":1},more)"_ba);
}

void tst_ListSharing::emptyAndMalformed()
{
    ListPage page;
    QString error;
    QVERIFY(decodeListPageShared(
        R"({"items":[],"metadata":{"resourceVersion":"5"}})"_ba, &page, &error));
    QVERIFY(page.items.isEmpty());
    QCOMPARE(page.resourceVersion, u"5"_s);
    QVERIFY(!decodeListPageShared(R"({"items":[{]})"_ba, &page, &error));
    QVERIFY(!error.isEmpty());
    // A body that does not own its bytes: the items are copies.
    static const char raw[] = R"({"items":[{"a":1}]})";
    const QByteArray borrowed = QByteArray::fromRawData(raw, sizeof raw - 1);
    QVERIFY(decodeListPageShared(borrowed, &page, &error));
    QCOMPARE(page.items.value(0), R"({"a":1})"_ba);
}

QTEST_GUILESS_MAIN(tst_ListSharing)
#include "tst_listsharing.moc"
