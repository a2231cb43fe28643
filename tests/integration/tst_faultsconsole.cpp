// What the console shows during faults (issue 9): its status bar is driven by the real
// reflector's states - "reconnecting in N s" while the API server is down, "relisting" after a
// 410, "watching" again once recovered - and its cache ends equal to the server's.
#include "controller/console/consolesession.h"
#include "tests/operator/operatortestutil.h"
#include "ui/consolestatusbar.h"

#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace optest;
using namespace reconscope::ui;

class tst_FaultsConsole final : public QObject
{
    Q_OBJECT

private slots:
    void statusBarFollowsFaults();
};

void tst_FaultsConsole::statusBarFollowsFaults()
{
    ClusterFixture fx(20);
    const QString error = fx.start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    for (int i = 0; i < 3; ++i)
        QVERIFY(
            fx.create(customApps,
                      ClusterFixture::customApp(u"app-"_s + QString::number(i),
                                                { { "image", "nginx:1.27" }, { "replicas", 1 } })));

    ConsoleSession session;
    session.setRunReconciler(false);
    ConsoleStatusBar bar(&session);
    bar.show();
    QStringList shown; // the bar's text after every state change (the bar updates first)
    connect(&session,
            &ConsoleSession::connectionStateChanged,
            &bar,
            [&](const reconscope::controller::kube::ReflectorState &) {
                shown << bar.connectionText();
            });
    QVERIFY(session.openKubeconfig(fx.server()->kubeconfigPath(), u"reconscope-admin"_s).ok());
    QTRY_VERIFY_WITH_TIMEOUT(bar.connectionText().contains(u"watching"_s), 15000);

    // The API server goes down: the bar counts down to the next attempt, the tooltip says why.
    fx.server()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(bar.connectionText().contains(u"reconnecting in "_s), 15000);
    QVERIFY(fx.mergePatch(customApps, u"app-1"_s, { { "spec", { { "replicas", 2 } } } }));
    QVERIFY(fx.server()->start().ok());
    QTRY_VERIFY_WITH_TIMEOUT(bar.connectionText().contains(u"watching"_s), 15000);

    // The watch is cut and the history compacted: resuming answers 410, the console relists.
    fx.server()->faultInjector()->setDropWatchAfterEvents(1);
    QVERIFY(fx.mergePatch(customApps, u"app-0"_s, { { "spec", { { "replicas", 3 } } } }));
    QVERIFY(fx.remove(customApps, u"app-2"_s));
    fx.cluster()->compact();
    fx.server()->faultInjector()->setDropWatchAfterEvents(0);
    QTRY_VERIFY_WITH_TIMEOUT(shown.filter(u"relisting"_s).size() > 0, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(bar.connectionText().contains(u"watching"_s), 15000);

    // The console's cache equals the server's.
    auto storage = [&] {
        QMap<QString, QString> rvs;
        const auto list = fx.cluster()->list(customApps, u"default"_s);
        for (const auto &item : list.value().value("items", json::array()))
            rvs.insert(u"default/"_s + QString::fromStdString(item["metadata"].value("name", "")),
                       QString::fromStdString(item["metadata"].value("resourceVersion", "")));
        return rvs;
    };
    auto cached = [&] {
        QMap<QString, QString> rvs;
        const auto &entries = session.informer()->entries();
        for (auto it = entries.cbegin(); it != entries.cend(); ++it)
            rvs.insert(it.key(), it->summary.resourceVersion);
        return rvs;
    };
    QTRY_COMPARE_WITH_TIMEOUT(cached(), storage(), 15000);
    QCOMPARE(cached().size(), 2);
    QVERIFY(shown.filter(u"reconnecting in "_s).size() > 0);
}

QTEST_MAIN(tst_FaultsConsole)
#include "tst_faultsconsole.moc"
