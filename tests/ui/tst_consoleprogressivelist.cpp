// The console's first list shown as it streams in (ConsoleSession::setProgressiveFirstList): the
// server sends part of the list and holds the rest; the rows received are tracked and shown before
// the list is complete while each batch goes after the rows shown, the panel says "Listing…";
// a batch whose rows would land among those shown (another namespace's names) holds the list,
// which then goes in whole and in order once complete. Either way every object is announced once
// and makes one transition, and the tracker's counts are the table's.
#include "../kube/testserver.h"
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/resourcetablepanel.h"
#include "uitestsupport.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QPointer>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope;
using namespace reconscope::ui;
using models::ResourceTableModel;

namespace {

constexpr int Timeout = 20000;

QByteArray object(const QByteArray &namespace_, const QByteArray &name, int rv)
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + name + R"(","namespace":")" + namespace_ + R"(","resourceVersion":")"
        + QByteArray::number(rv)
        + R"(","generation":1},"spec":{"image":"nginx:1.27"},"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Available","message":"m","lastTransitionTime":"2026-11-30T00:15:00Z"}]}})";
}

} // namespace

class tst_ConsoleProgressiveList final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void rowsShownWhileTheListStreams();
    void interleavedListIsHeldThenInsertedInOrder();

private:
    // Serves the CustomApps list: `split` items, then the rest once release() is called; watches
    // stay open and silent; anything else is 404.
    void serve(const QList<QByteArray> &items, qsizetype split);
    void release();
    struct Observed
    {
        QStringList announced; // objectsChanged's upserted keys, in order
        QList<models::Transition> transitions;
    };
    void observe(ConsoleSession &session, Observed *observed);
    void verifyComplete(const ConsoleSession &session,
                        const ResourceTablePanel &panel,
                        const Observed &observed,
                        const QStringList &keys);

    // A console that shows the first list as it streams in, its table and sorted proxy under
    // QAbstractItemModelTester.
    struct ProgressiveConsole
    {
        ProgressiveConsole()
            : panel(session.tableModel())
            , modelTester(session.tableModel(),
                          QAbstractItemModelTester::FailureReportingMode::QtTest)
            , proxyTester(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest)
        {
            session.setProgressiveFirstList(true);
            session.setBatchInterval(5);
        }
        ConsoleSession session;
        ResourceTablePanel panel;
        QAbstractItemModelTester modelTester;
        QAbstractItemModelTester proxyTester;
    };

    std::unique_ptr<TestServer> m_server;
    QTemporaryDir m_dir;
    QByteArray m_body;
    qsizetype m_splitAt = 0;
    QPointer<QTcpSocket> m_held;
};

void tst_ConsoleProgressiveList::init()
{
    m_server = std::make_unique<TestServer>();
    m_held = nullptr;
}

void tst_ConsoleProgressiveList::cleanup()
{
    m_server.reset();
}

void tst_ConsoleProgressiveList::serve(const QList<QByteArray> &items, qsizetype split)
{
    m_body = reconscope::tests::customAppListBody(items, 5000);
    m_splitAt = m_body.indexOf(items[split]);
    m_server->handler = [this](const TestRequest &request, QTcpSocket *socket) {
        if (!request.path.endsWith(u"/customapps"_s)) {
            TestServer::respond(socket, 404, "application/json", R"({"kind":"Status","code":404})");
            return;
        }
        TestServer::startStream(socket);
        if (request.query.hasQueryItem(u"watch"_s))
            return;
        TestServer::writeChunk(socket, m_body.left(m_splitAt));
        m_held = socket;
    };
}

void tst_ConsoleProgressiveList::release()
{
    QVERIFY(m_held);
    TestServer::writeChunk(m_held, m_body.mid(m_splitAt));
    TestServer::endStream(m_held);
}

void tst_ConsoleProgressiveList::observe(ConsoleSession &session, Observed *observed)
{
    connect(&session,
            &ConsoleSession::objectsChanged,
            this,
            [observed](const QStringList &upserted) { observed->announced += upserted; });
    connect(&session,
            &ConsoleSession::transitionsObserved,
            this,
            [observed](const QList<models::Transition> &transitions) {
                observed->transitions += transitions;
            });
}

void tst_ConsoleProgressiveList::verifyComplete(const ConsoleSession &session,
                                                const ResourceTablePanel &panel,
                                                const Observed &observed,
                                                const QStringList &keys)
{
    const ResourceTableModel *model = session.tableModel();
    QCOMPARE(model->rowCount(), keys.size());
    QCOMPARE(panel.proxy()->rowCount(), keys.size());
    QCOMPARE(model->listing(), std::nullopt);
    QCOMPARE(panel.summaryText(), u"%1 objects"_s.arg(keys.size()));
    // Every object announced once, and its census entry (Ready, found at connect: no transition)
    // sent once, as the tracker's log holds it, in Ready since its condition says.
    QStringList announced = observed.announced;
    announced.sort();
    QStringList expected = keys;
    expected.sort();
    QCOMPARE(announced, expected);
    QCOMPARE(observed.transitions.size(), keys.size());
    QSet<QString> moved;
    for (const models::Transition &transition : observed.transitions) {
        QVERIFY(!transition.from);
        QCOMPARE(transition.observed, models::Observed::AtConnect);
        QCOMPARE(transition.to, models::StateNode(models::LifecycleState::Ready));
        QCOMPARE(session.tracker().log().history(transition.key),
                 QList<models::Transition>{ transition });
        const models::ResourceRow *row = model->find(transition.key);
        QVERIFY(row);
        QCOMPARE(row->stateSince, transition.since);
        QCOMPARE(row->sinceCondition, u"Ready"_s);
        moved.insert(transition.key);
    }
    QCOMPARE(moved.size(), keys.size());
    for (int state = 0; state < models::LifecycleStateCount; ++state) {
        const auto s = models::LifecycleState(state);
        QCOMPARE(session.tracker().stats().objectsIn(s), model->countIn(s));
    }
    QCOMPARE(model->countIn(models::LifecycleState::Ready), keys.size());
    // Sorted by name, in the model's own order too (each batch went in sorted, after the rows
    // shown), and the proxy shows that order.
    for (int row = 1; row < model->rowCount(); ++row) {
        QVERIFY2(ResourceTableModel::compareRows(
                     *model->rowAt(row - 1), *model->rowAt(row), ResourceTableModel::NameColumn)
                     <= 0,
                 qPrintable(u"row %1"_s.arg(row)));
        QCOMPARE(panel.proxy()->mapToSource(panel.proxy()->index(row, 0)).row(), row);
    }
}

void tst_ConsoleProgressiveList::rowsShownWhileTheListStreams()
{
    QList<QByteArray> items;
    QStringList keys;
    for (int i = 0; i < 1000; ++i) {
        const QByteArray name = "app-" + QByteArray::number(i).rightJustified(4, '0');
        items << object("team", name, 100 + i);
        keys << u"team/"_s + QString::fromLatin1(name);
    }
    serve(items, 600);
    const QString kubeconfig
        = reconscope::tests::writeTestServerKubeconfig(m_dir, m_server->port());

    ProgressiveConsole console;
    ConsoleSession &session = console.session;
    ResourceTablePanel &panel = console.panel;
    QSignalSpy resets(session.tableModel(), &QAbstractItemModel::modelReset);
    QSignalSpy proxyInserts(panel.proxy(), &QAbstractItemModel::rowsInserted);
    Observed observed;
    observe(session, &observed);
    panel.show();
    QVERIFY(session.openKubeconfig(kubeconfig).ok());

    // Part of the list is in (the prepared batches complete before the pause): shown, sorted,
    // while the server holds the rest.
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowCount() > 0
                                 && session.tableModel()->listing()
                                     == std::optional<qsizetype>(session.tableModel()->rowCount()),
                             Timeout);
    const int shown = session.tableModel()->rowCount();
    QVERIFY(m_held);
    QVERIFY(!session.informer()->hasSynced());
    QVERIFY(shown <= 600);
    QCOMPARE(panel.proxy()->rowCount(), shown);
    QCOMPARE(panel.summaryText(), u"Listing… %1 objects"_s.arg(shown));
    const qsizetype resetsBefore = resets.size();

    release();
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), 1000, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->listing(), std::nullopt, Timeout);
    verifyComplete(session, panel, observed, keys);
    // Never taken back: each batch went in as one block at the proxy's end.
    QCOMPARE(resets.size(), resetsBefore);
    int inserted = 0;
    for (const auto &arguments : std::as_const(proxyInserts)) {
        QCOMPARE(arguments.at(1).toInt(), inserted); // at the end
        inserted = arguments.at(2).toInt() + 1;
    }
    QCOMPARE(inserted, 1000);
}

void tst_ConsoleProgressiveList::interleavedListIsHeldThenInsertedInOrder()
{
    // Listed in key order: namespace "a" (names x…) then "b" (names m…, before them by name).
    QList<QByteArray> items;
    QStringList keys;
    for (int i = 0; i < 1000; ++i) {
        const QByteArray namespace_ = i < 500 ? "a" : "b";
        const QByteArray name
            = (i < 500 ? "x" : "m") + QByteArray::number(i).rightJustified(4, '0');
        items << object(namespace_, name, 100 + i);
        keys << QString::fromLatin1(namespace_ + '/' + name);
    }
    serve(items, 300);
    const QString kubeconfig
        = reconscope::tests::writeTestServerKubeconfig(m_dir, m_server->port());

    ProgressiveConsole console;
    ConsoleSession &session = console.session;
    ResourceTablePanel &panel = console.panel;
    Observed observed;
    observe(session, &observed);
    panel.show();
    QVERIFY(session.openKubeconfig(kubeconfig).ok());

    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowCount() > 0
                                 && session.tableModel()->listing()
                                     == std::optional<qsizetype>(session.tableModel()->rowCount()),
                             Timeout);
    const int shown = session.tableModel()->rowCount();
    QVERIFY(shown <= 300);
    QVERIFY(!session.informer()->hasSynced());
    QSignalSpy resets(session.tableModel(), &QAbstractItemModel::modelReset);
    QSignalSpy proxyInserts(panel.proxy(), &QAbstractItemModel::rowsInserted);

    release();
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), 1000, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->listing(), std::nullopt, Timeout);
    verifyComplete(session, panel, observed, keys);
    // The rows shown were taken back once and the whole list went in again in order: every
    // insertion since at the proxy's end.
    QCOMPARE(resets.size(), 1);
    int inserted = shown;
    for (const auto &arguments : std::as_const(proxyInserts)) {
        if (arguments.at(1).toInt() == 0)
            inserted = 0; // after the reset
        QCOMPARE(arguments.at(1).toInt(), inserted);
        inserted = arguments.at(2).toInt() + 1;
    }
    QCOMPARE(inserted, 1000);
}

QTEST_MAIN(tst_ConsoleProgressiveList)
#include "tst_consoleprogressivelist.moc"
