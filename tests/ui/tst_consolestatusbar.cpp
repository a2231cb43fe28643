#include "controller/console/consolesession.h"
#include "ui/consolestatusbar.h"
#include "uitestsupport.h"

#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using reconscope::controller::kube::ReflectorState;

class tst_ConsoleStatusBar final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void connectionStates_data();
    void connectionStates();
    void reconnectingCountsDown();
    void readOnlyBadgeOnRealClusters();
    void unreachableClusterReconnects();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<ConsoleStatusBar> m_bar;
};

void tst_ConsoleStatusBar::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_session = std::make_unique<ConsoleSession>();
    m_bar = std::make_unique<ConsoleStatusBar>(m_session.get());
    m_bar->show();
}

void tst_ConsoleStatusBar::cleanup()
{
    m_bar.reset();
    m_session.reset();
    m_dir.reset();
}

void tst_ConsoleStatusBar::connectionStates_data()
{
    QTest::addColumn<int>("phase");
    QTest::addColumn<QString>("text");
    QTest::newRow("idle") << int(ReflectorState::Phase::Idle) << u"not watching"_s;
    QTest::newRow("listing") << int(ReflectorState::Phase::Listing) << u"listing"_s;
    QTest::newRow("watching") << int(ReflectorState::Phase::Watching) << u"watching"_s;
    QTest::newRow("relisting") << int(ReflectorState::Phase::Relisting) << u"relisting"_s;
}

void tst_ConsoleStatusBar::connectionStates()
{
    QFETCH(int, phase);
    QFETCH(QString, text);
    ReflectorState state;
    state.phase = ReflectorState::Phase(phase);
    emit m_session->connectionStateChanged(state);
    QVERIFY2(m_bar->connectionText().endsWith(text), qPrintable(m_bar->connectionText()));
}

void tst_ConsoleStatusBar::reconnectingCountsDown()
{
    ReflectorState state;
    state.phase = ReflectorState::Phase::Reconnecting;
    state.retryInMs = 2500;
    state.lastError = u"connection refused"_s;
    emit m_session->connectionStateChanged(state);
    QVERIFY2(m_bar->connectionText().endsWith(u"reconnecting in 3 s"_s),
             qPrintable(m_bar->connectionText()));
    QTRY_VERIFY_WITH_TIMEOUT(m_bar->connectionText().endsWith(u"reconnecting in 2 s"_s), 3000);
}

void tst_ConsoleStatusBar::readOnlyBadgeOnRealClusters()
{
    QVERIFY(m_session->openKubeconfig(reconscope::tests::writeTwoContextKubeconfig(*m_dir)).ok());
    QCOMPARE(m_bar->badgeText(), u"READ-ONLY"_s);
    QCOMPARE(m_bar->contextText(), u"context staging · http://127.0.0.1:1"_s);
    m_session->setWritesEnabled(true);
    QCOMPARE(m_bar->badgeText(), u"WRITES ENABLED"_s);
    QVERIFY(m_session->switchContext(u"prod"_s).ok());
    QCOMPARE(m_bar->badgeText(), u"READ-ONLY"_s);
}

void tst_ConsoleStatusBar::unreachableClusterReconnects()
{
    QVERIFY(m_session->openKubeconfig(reconscope::tests::writeTwoContextKubeconfig(*m_dir)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(m_bar->connectionText().contains(u"reconnecting in"_s), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(m_bar->rateText() == u"0 events/s"_s, 3000);
}

QTEST_MAIN(tst_ConsoleStatusBar)
#include "tst_consolestatusbar.moc"
