// The boundary verifier panel, offscreen: findings of a manifest, the write switch guarding the
// live check on a real cluster, the export, and a live check that passes on the embedded
// cluster's CustomApps.
#include "uitestsupport.h"

#include "controller/console/consolesession.h"
#include "controller/kube/discovery.h"
#include "ui/lintpanel.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

using namespace Qt::StringLiterals;
using reconscope::controller::console::ConsoleSession;
using reconscope::ui::LintPanel;

namespace {

const QString mixedCrd = QStringLiteral(RECONSCOPE_SOURCE_DIR)
    + u"/resources/crds/mixedconsumergroups.kafka.internal.net.yaml"_s;

} // namespace

class tst_LintPanel : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void findingsOfAManifest();
    void liveCheckNeedsTheWriteSwitch();
    void exportsMarkdownAndJson();
    void liveCheckOnTheEmbeddedCluster();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<LintPanel> m_panel;
};

void tst_LintPanel::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_session = std::make_unique<ConsoleSession>();
}

void tst_LintPanel::cleanup()
{
    m_panel.reset();
    m_session.reset();
    m_dir.reset();
}

void tst_LintPanel::findingsOfAManifest()
{
    m_panel = std::make_unique<LintPanel>(m_session.get());
    m_panel->show();
    QSignalSpy linted(m_panel.get(), &LintPanel::lintFinished);
    QVERIFY(!m_panel->openFile(u"/nonexistent.yaml"_s));
    QVERIFY(m_panel->statusLabel()->text().contains(u"/nonexistent.yaml"));
    QCOMPARE(linted.size(), 0);

    QVERIFY(m_panel->openFile(mixedCrd));
    QCOMPARE(linted.size(), 1);
    QTableWidget *findings = m_panel->findingsTable();
    QCOMPARE(findings->rowCount(), 6);
    QCOMPARE(findings->item(0, 0)->text(), u"error"_s);
    QCOMPARE(findings->item(0, 1)->text(), u"observed-field-in-spec"_s);
    QCOMPARE(
        findings->item(0, 2)->text(),
        u"spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.currentReplicas"_s);
    QVERIFY(findings->item(0, 3)->text().contains(u"GitOps"));
    QCOMPARE(findings->item(5, 1)->text(), u"printer-column-reads-spec"_s);
    QVERIFY(m_panel->statusLabel()->text().contains(u"4 error(s), 2 warning(s)"));

    QVERIFY(m_panel->openFile(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                              + u"/resources/crds/customapps.infrastructure.internal.net.yaml"_s));
    QCOMPARE(findings->rowCount(), 0);
    QVERIFY(m_panel->statusLabel()->text().contains(u"clean"));
}

void tst_LintPanel::liveCheckNeedsTheWriteSwitch()
{
    QVERIFY(m_session->openKubeconfig(reconscope::tests::writeTwoContextKubeconfig(*m_dir)).ok());
    m_panel = std::make_unique<LintPanel>(m_session.get());
    QVERIFY(m_panel->openFile(mixedCrd));
    QVERIFY(!m_session->writesEnabled());
    QVERIFY(!m_panel->liveButton()->isEnabled());
    QVERIFY(m_panel->liveButton()->toolTip().contains(u"writes are disabled"));
    QSignalSpy finished(m_panel.get(), &LintPanel::liveCheckFinished);
    m_panel->runLiveCheck();
    QVERIFY(m_panel->statusLabel()->text().startsWith(u"Live check refused"));
    QCOMPARE(finished.size(), 0);

    m_session->setWritesEnabled(true);
    QVERIFY(m_panel->liveButton()->isEnabled());
    m_session->setWritesEnabled(false);
    QVERIFY(!m_panel->liveButton()->isEnabled());
}

void tst_LintPanel::exportsMarkdownAndJson()
{
    m_panel = std::make_unique<LintPanel>(m_session.get());
    QVERIFY(m_panel->openFile(mixedCrd));
    const QString md = m_dir->filePath(u"report.md"_s);
    QVERIFY(m_panel->exportReport(md));
    QFile mdFile(md);
    QVERIFY(mdFile.open(QIODevice::ReadOnly));
    const QString markdown = QString::fromUtf8(mdFile.readAll());
    QVERIFY(markdown.startsWith(u"# API boundary report"));
    QVERIFY(markdown.contains(u"| error | no-status-subresource |"));

    const QString jsonPath = m_dir->filePath(u"report.json"_s);
    QVERIFY(m_panel->exportReport(jsonPath));
    QFile jsonFile(jsonPath);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QByteArray bytes = jsonFile.readAll();
    const auto json = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
    QVERIFY(!json.is_discarded());
    QCOMPARE(json["crds"][0]["findings"].size(), size_t(6));
    QCOMPARE(json["hasErrors"].get<bool>(), true);

    QVERIFY(!m_panel->exportReport(u"/nonexistent-dir/report.md"_s));
    QVERIFY(m_panel->statusLabel()->text().contains(u"cannot write"));
}

void tst_LintPanel::liveCheckOnTheEmbeddedCluster()
{
    m_session->setRunReconciler(false);
    m_session->setPlayScenario(false);
    m_panel = std::make_unique<LintPanel>(m_session.get());
    m_panel->show();
    QVERIFY(m_session->startDemo().ok());
    const QString crd = u"customapps.infrastructure.internal.net"_s;
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->crdPicker()->findText(crd) >= 0, 20000);
    QVERIFY(m_session->writesEnabled()); // the embedded cluster is always writable

    QSignalSpy linted(m_panel.get(), &LintPanel::lintFinished);
    m_panel->crdPicker()->setCurrentIndex(m_panel->crdPicker()->findText(crd));
    emit m_panel->crdPicker()->activated(m_panel->crdPicker()->currentIndex());
    QCOMPARE(linted.size(), 1);
    QCOMPARE(m_panel->findingsTable()->rowCount(), 0);
    QVERIFY(m_panel->statusLabel()->text().contains(u"clean"));
    QVERIFY(m_panel->liveButton()->isEnabled());

    // The demo seeds CustomApps; with no object named the first one is checked.
    QSignalSpy finished(m_panel.get(), &LintPanel::liveCheckFinished);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->informer() && m_session->informer()->size() > 0, 20000);
    m_panel->liveButton()->click();
    QVERIFY(finished.wait(20000) || finished.size() == 1);
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(m_panel->verdictsTable()->rowCount(), 7);
    for (int row = 0; row < 7; ++row)
        QCOMPARE(m_panel->verdictsTable()->item(row, 0)->text(), u"PASS"_s);
    QVERIFY(m_panel->verdictsTable()->item(0, 0)->toolTip().contains(u"dryRun=All"));
    QVERIFY(m_panel->statusLabel()->text().contains(u"the boundary holds"));
    QVERIFY(m_panel->report().live.has_value());
}

QTEST_MAIN(tst_LintPanel)
#include "tst_lintpanel.moc"
