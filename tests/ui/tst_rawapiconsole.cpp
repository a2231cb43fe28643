// The raw API console against the embedded cluster (in-process, reached over mTLS through the
// kubeconfig it writes, as a real cluster): get --raw with history and pretty JSON, errors as the
// Status says, the watch mode streaming events until stopped, and the path parsing behind it.
#include "../operator/operatortestutil.h"
#include "controller/console/consolesession.h"
#include "controller/labs/rawapi.h"
#include "ui/rawapiconsole.h"

#include <QAction>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>

using namespace optest;
namespace rawlab = reconscope::controller::labs;
namespace ui = reconscope::ui;

class tst_RawApiConsole : public QObject
{
    Q_OBJECT

private slots:
    void watchTarget_data();
    void watchTarget();
    void prettyJson();

    void init();
    void cleanup();
    void getRaw();
    void getErrors();
    void historyShowsEarlierAnswers();
    void watchStreamsUntilStopped();
    void watchOneObject();
    void watchRefusesNonResourcePath();

private:
    static constexpr auto AppPath = "/apis/infrastructure.internal.net/v1/namespaces/default/"
                                    "customapps";
    std::unique_ptr<ClusterFixture> m_fx;
    std::unique_ptr<reconscope::controller::console::ConsoleSession> m_session;
    std::unique_ptr<ui::RawApiConsole> m_console;
};

void tst_RawApiConsole::watchTarget_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("group");
    QTest::addColumn<QString>("plural");
    QTest::addColumn<QString>("ns");
    QTest::addColumn<QString>("fieldSelector");
    QTest::addColumn<QString>("resourceVersion");

    QTest::newRow("namespaced collection")
        << u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps?watch=1"_s << true
        << u"infrastructure.internal.net"_s << u"customapps"_s << u"default"_s << QString()
        << QString();
    QTest::newRow("all namespaces")
        << u"/apis/apps/v1/deployments?resourceVersion=12"_s << true << u"apps"_s
        << u"deployments"_s << QString() << QString() << u"12"_s;
    QTest::newRow("core") << u"/api/v1/namespaces/kube-system/pods"_s << true << QString()
                          << u"pods"_s << u"kube-system"_s << QString() << QString();
    QTest::newRow("cluster scoped") << u"/api/v1/namespaces"_s << true << QString()
                                    << u"namespaces"_s << QString() << QString() << QString();
    QTest::newRow("one object")
        << u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/web"_s << true
        << u"infrastructure.internal.net"_s << u"customapps"_s << u"default"_s
        << u"metadata.name=web"_s << QString();
    QTest::newRow("one object and a selector")
        << u"/api/v1/namespaces/a/pods/p?fieldSelector=status.phase%3DRunning"_s << true
        << QString() << u"pods"_s << u"a"_s << u"status.phase=Running,metadata.name=p"_s
        << QString();
    QTest::newRow("subresource")
        << u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/web/status"_s
        << false << QString() << QString() << QString() << QString() << QString();
    QTest::newRow("discovery") << u"/apis"_s << false << QString() << QString() << QString()
                               << QString() << QString();
    QTest::newRow("healthz") << u"/healthz"_s << false << QString() << QString() << QString()
                             << QString() << QString();
}

void tst_RawApiConsole::watchTarget()
{
    QFETCH(QString, path);
    QFETCH(bool, ok);
    QString problem;
    const auto target = rawlab::watchTargetOf(path, &problem);
    QCOMPARE(target.has_value(), ok);
    if (!ok) {
        QVERIFY(!problem.isEmpty());
        return;
    }
    QFETCH(QString, group);
    QFETCH(QString, plural);
    QFETCH(QString, ns);
    QFETCH(QString, fieldSelector);
    QFETCH(QString, resourceVersion);
    QCOMPARE(target->resource.group, group);
    QCOMPARE(target->resource.plural, plural);
    QCOMPARE(target->namespace_, ns);
    QCOMPARE(target->options.fieldSelector, fieldSelector);
    QCOMPARE(target->options.resourceVersion, resourceVersion);
}

void tst_RawApiConsole::prettyJson()
{
    QCOMPARE(rawlab::prettyJson(R"({"a":[1,2]})"), u"{\n  \"a\": [\n    1,\n    2\n  ]\n}"_s);
    QCOMPARE(rawlab::prettyJson("ok"), u"ok"_s);
}

void tst_RawApiConsole::init()
{
    m_fx = std::make_unique<ClusterFixture>(30);
    const QString error = m_fx->start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(m_fx->create(customApps,
                         ClusterFixture::customApp(u"web"_s, { { "image", "nginx:1.27" } })));
    m_session = std::make_unique<reconscope::controller::console::ConsoleSession>();
    const auto opened
        = m_session->openKubeconfig(m_fx->server()->kubeconfigPath(), u"reconscope-admin"_s);
    QVERIFY2(opened.ok(), qPrintable(opened.ok() ? QString() : opened.error().message));
    m_console = std::make_unique<ui::RawApiConsole>(m_session.get());
    m_console->show();
    QVERIFY(m_console->getAction()->isEnabled());
}

void tst_RawApiConsole::cleanup()
{
    m_console.reset();
    m_session.reset();
    m_fx.reset();
}

void tst_RawApiConsole::getRaw()
{
    m_console->setSelectedObject(u"default/web"_s);
    QCOMPARE(m_console->path(), QString::fromLatin1(AppPath) + u"/web"_s);
    QSignalSpy answered(m_console->api(), &rawlab::RawApi::answered);
    m_console->getAction()->trigger();
    QVERIFY(answered.wait(10000));
    QVERIFY2(m_console->statusLabel()->text().startsWith(u"200 application/json"_s),
             qPrintable(m_console->statusLabel()->text()));
    const QString shown = m_console->output()->toPlainText();
    // Pretty: indented, one member per line, and the same JSON as the cluster holds.
    QVERIFY(shown.contains(u"\n  \"metadata\": {\n"_s));
    QCOMPARE_JSON(json::parse(shown.toStdString()), m_fx->get(customApps, u"web"_s));
    QCOMPARE(m_console->historyList()->count(), 1);
    QCOMPARE(m_console->historyList()->item(0)->text(),
             u"200  "_s + QString::fromLatin1(AppPath) + u"/web"_s);
}

void tst_RawApiConsole::getErrors()
{
    QSignalSpy answered(m_console->api(), &rawlab::RawApi::answered);
    m_console->setPath(QString::fromLatin1(AppPath) + u"/nope"_s);
    m_console->get();
    QVERIFY(answered.wait(10000));
    const auto result = answered.last().at(0).value<rawlab::RawResult>();
    QCOMPARE(result.status, 404);
    QVERIFY(result.error);
    QCOMPARE(result.error->reason, u"NotFound"_s);
    QCOMPARE(m_console->output()->toPlainText(),
             u"NotFound (404): customapps.infrastructure.internal.net \"nope\" not found"_s);
    QVERIFY(m_console->statusLabel()->text().contains(u"404"_s));
    QCOMPARE(m_console->historyList()->item(0)->text().left(3), u"404"_s);
}

void tst_RawApiConsole::historyShowsEarlierAnswers()
{
    QSignalSpy answered(m_console->api(), &rawlab::RawApi::answered);
    m_console->setPath(u"/version"_s);
    m_console->get();
    QVERIFY(answered.wait(10000));
    m_console->setPath(QString::fromLatin1(AppPath));
    m_console->get();
    QVERIFY(answered.wait(10000));
    QCOMPARE(m_console->historyList()->count(), 2);
    QVERIFY(m_console->output()->toPlainText().contains(u"\"kind\": \"CustomAppList\""_s));
    m_console->historyList()->setCurrentRow(1); // the older answer
    QVERIFY(m_console->output()->toPlainText().contains(u"gitVersion"_s));
    QVERIFY(m_console->historyList()->item(1)->text().endsWith(u"/version"_s));
}

void tst_RawApiConsole::watchStreamsUntilStopped()
{
    m_console->setPath(QString::fromLatin1(AppPath) + u"?watch=1"_s);
    QVERIFY(m_console->startWatch());
    QVERIFY(m_console->api()->isWatching());
    QVERIFY(m_console->stopAction()->isEnabled());
    QVERIFY(!m_console->watchAction()->isEnabled());
    // Without a resourceVersion the watch starts with the objects there are (ADDED).
    QTRY_VERIFY_WITH_TIMEOUT(m_console->eventList()->count() >= 1, 10000);
    QVERIFY(m_console->eventList()->item(0)->text().startsWith(u"ADDED  default/web  rv="_s));
    QVERIFY(m_fx->create(customApps,
                         ClusterFixture::customApp(u"db"_s, { { "image", "postgres:16" } })));
    QTRY_VERIFY_WITH_TIMEOUT(m_console->eventList()->count() >= 2, 10000);
    QVERIFY(m_console->eventList()->item(1)->text().startsWith(u"ADDED  default/db"_s));
    QVERIFY(m_fx->mergePatch(customApps, u"db"_s, { { "spec", { { "replicas", 3 } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_console->eventList()->count() >= 3, 10000);
    QVERIFY(m_console->eventList()->item(2)->text().startsWith(u"MODIFIED  default/db"_s));
    // The newest event is shown, pretty.
    QVERIFY(m_console->output()->toPlainText().contains(u"\"replicas\": 3"_s));

    m_console->stopAction()->trigger();
    QVERIFY(!m_console->api()->isWatching());
    QVERIFY(m_console->watchAction()->isEnabled());
    QVERIFY(!m_console->stopAction()->isEnabled());
    QVERIFY(m_console->statusLabel()->text().startsWith(u"Watch ended after 3 event"_s));
    const int seen = m_console->eventList()->count();
    QVERIFY(m_fx->remove(customApps, u"db"_s));
    // A GET round trip later, still nothing new arrived.
    QSignalSpy answered(m_console->api(), &rawlab::RawApi::answered);
    m_console->setPath(u"/version"_s);
    m_console->get();
    QVERIFY(answered.wait(10000));
    QCOMPARE(m_console->eventList()->count(), seen);
}

void tst_RawApiConsole::watchOneObject()
{
    QVERIFY(m_fx->create(customApps,
                         ClusterFixture::customApp(u"db"_s, { { "image", "postgres:16" } })));
    m_console->setPath(QString::fromLatin1(AppPath) + u"/web"_s);
    QVERIFY(m_console->startWatch());
    QTRY_COMPARE_WITH_TIMEOUT(m_console->eventList()->count(), 1, 10000);
    QVERIFY(m_fx->mergePatch(customApps, u"db"_s, { { "spec", { { "replicas", 2 } } } }));
    QVERIFY(m_fx->mergePatch(customApps, u"web"_s, { { "spec", { { "replicas", 2 } } } }));
    QTRY_COMPARE_WITH_TIMEOUT(m_console->eventList()->count(), 2, 10000);
    QVERIFY(m_console->eventList()->item(1)->text().startsWith(u"MODIFIED  default/web"_s));
    m_console->stopWatch();
}

void tst_RawApiConsole::watchRefusesNonResourcePath()
{
    m_console->setPath(u"/apis"_s);
    QVERIFY(!m_console->startWatch());
    QVERIFY(m_console->statusLabel()->text().startsWith(u"Cannot watch /apis: not a resource"_s));
    QVERIFY(!m_console->api()->isWatching());
    QVERIFY(m_console->watchAction()->isEnabled());
}

QTEST_MAIN(tst_RawApiConsole)
#include "tst_rawapiconsole.moc"
