// The patch lab panel on a console session connected to the embedded cluster as to a real one
// (through its kubeconfig, so writes are off until enabled): live validation, the write switch,
// the confirmation that shows the exact request, Ctrl+Return, the result view, copy as kubectl and
// the exported history.
#include "../operator/operatortestutil.h"
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/patchlabpanel.h"
#include "ui/writegate.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>

using namespace optest;
namespace lab = reconscope::controller::labs;
namespace ui = reconscope::ui;

class tst_PatchLabPanel : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void liveValidation();
    void refusedWithoutWriteSwitch();
    void confirmationShowsExactRequest();
    void ctrlReturnSends();
    void staleShowsConflict();
    void copyAndExport();

private:
    QAbstractButton *button(QMessageBox *box, const QString &text)
    {
        for (auto *b : box->buttons()) {
            if (b->text().remove(u'&') == text)
                return b;
        }
        return nullptr;
    }
    // Sends through the confirmation and waits for the experiment's end.
    bool sendConfirmed()
    {
        QSignalSpy finished(m_panel->lab(), &lab::PatchLab::experimentFinished);
        if (!m_panel->send())
            return false;
        if (!QTest::qWaitFor([this] { return m_panel->writeGate()->pendingConfirmation(); }, 10000))
            return false;
        QMessageBox *box = m_panel->writeGate()->pendingConfirmation();
        QAbstractButton *send = button(box, u"Send"_s);
        if (!send)
            return false;
        send->click();
        return finished.wait(15000);
    }

    std::unique_ptr<ClusterFixture> m_fx;
    std::unique_ptr<reconscope::controller::console::ConsoleSession> m_session;
    std::unique_ptr<ui::PatchLabPanel> m_panel;
};

void tst_PatchLabPanel::init()
{
    m_fx = std::make_unique<ClusterFixture>(30);
    const QString error = m_fx->start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"web"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } })));
    m_session = std::make_unique<reconscope::controller::console::ConsoleSession>();
    const auto opened
        = m_session->openKubeconfig(m_fx->server()->kubeconfigPath(), u"reconscope-admin"_s);
    QVERIFY(opened.ok());
    QVERIFY(!m_session->isDemo());
    QVERIFY(!m_session->writesEnabled());
    m_panel = std::make_unique<ui::PatchLabPanel>(m_session.get());
    m_panel->lab()->setReactionTimeout(0);
    m_panel->show();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"default/web"_s) >= 0, 10000);
    m_panel->setSelectedObject(u"default/web"_s);
    QCOMPARE(m_panel->selectedObject(), u"default/web"_s);
}

void tst_PatchLabPanel::cleanup()
{
    m_panel.reset();
    m_session.reset();
    m_fx.reset();
}

void tst_PatchLabPanel::liveValidation()
{
    QTest::keyClick(m_panel->editor(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(m_panel->editor(), u"{\"status\": }"_s);
    QVERIFY(!m_panel->canSend());
    QVERIFY2(m_panel->validationText().startsWith(u"JSON syntax error at line 1, column 12"_s),
             qPrintable(m_panel->validationText()));
    QCOMPARE(m_panel->editor()->extraSelections().size(), 1);
    m_panel->setPatchText(u"{\"status\": {}}"_s);
    QVERIFY(m_panel->canSend());
    QVERIFY(m_panel->editor()->extraSelections().isEmpty());
    QCOMPARE(m_panel->validationText(), u"valid merge patch (RFC 7386)"_s);
    m_panel->setPatchType(apimachinery::PatchType::Json);
    QVERIFY(!m_panel->canSend());
    QVERIFY(m_panel->validationText().startsWith(u"a JSON patch must be an array"_s));
    m_panel->applyTemplate(lab::PatchTemplate::BumpSpecField);
    QVERIFY(m_panel->canSend());
    QVERIFY2(m_panel->patchText().contains(u"\"op\": \"add\""_s), qPrintable(m_panel->patchText()));
}

void tst_PatchLabPanel::refusedWithoutWriteSwitch()
{
    const json before = m_fx->get(customApps, u"web"_s);
    m_panel->applyTemplate(lab::PatchTemplate::ManualOverride);
    QVERIFY(m_panel->canSend());
    QSignalSpy refused(m_panel->writeGate(), &ui::WriteGate::refused);
    QVERIFY(!m_panel->send());
    QCOMPARE(refused.count(), 1);
    QVERIFY(!m_panel->writeGate()->pendingConfirmation());
    QVERIFY2(m_panel->resultView()->toPlainText().startsWith(
                 u"Not sent: Writes are disabled for context \"reconscope-admin\""_s),
             qPrintable(m_panel->resultView()->toPlainText()));
    QVERIFY(m_panel->lab()->history().isEmpty());
    QCOMPARE_JSON(m_fx->get(customApps, u"web"_s), before);
}

void tst_PatchLabPanel::confirmationShowsExactRequest()
{
    m_session->setWritesEnabled(true);
    m_panel->applyTemplate(lab::PatchTemplate::ManualOverride);
    const json patch = json::parse(m_panel->patchText().toStdString());
    QVERIFY(m_panel->send());
    QMessageBox *box = m_panel->writeGate()->pendingConfirmation();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    const QString expected = u"PATCH "_s + m_session->serverUrl()
        + u"/apis/infrastructure.internal.net/v1/namespaces/default/"
          "customapps/web/status\n\n"_s
        + QString::fromStdString(patch.dump());
    QCOMPARE(box->informativeText(), expected);
    QVERIFY(box->text().contains(u"reconscope-admin"_s));

    // Cancel: nothing is sent.
    button(box, u"Cancel"_s)->click();
    QVERIFY(m_panel->lab()->history().isEmpty());
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), QString());

    QVERIFY(sendConfirmed());
    QCOMPARE(m_panel->lab()->history().size(), 1);
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), u"ManualOverride"_s);
    const QString shown = m_panel->resultView()->toPlainText();
    QVERIFY2(shown.contains(u"HTTP 200"_s), qPrintable(shown));
    QVERIFY(shown.contains(u"spec unchanged, generation unchanged, status changed"_s));
    QCOMPARE(m_panel->historyList()->count(), 1);
    QVERIFY(m_panel->historyList()->item(0)->text().startsWith(u"#1 /status web → 200"_s));
}

void tst_PatchLabPanel::ctrlReturnSends()
{
    m_session->setWritesEnabled(true);
    m_panel->applyTemplate(lab::PatchTemplate::SetDegraded);
    m_panel->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_panel.get()));
    m_panel->editor()->setFocus();
    QTest::keyClick(m_panel->editor(), Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(m_panel->writeGate()->pendingConfirmation());
    button(m_panel->writeGate()->pendingConfirmation(), u"Cancel"_s)->click();
}

void tst_PatchLabPanel::staleShowsConflict()
{
    m_session->setWritesEnabled(true);
    m_panel->applyTemplate(lab::PatchTemplate::BumpSpecField);
    m_panel->setPrecondition(lab::Precondition::Stale);
    const QString current = QString::fromStdString(
        m_fx->get(customApps, u"web"_s)["metadata"]["resourceVersion"].get<std::string>());
    const QString stale = lab::staleResourceVersion(current);
    QVERIFY(m_panel->send());
    // The object is read first: the confirmation shows the stale version in the body.
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->writeGate()->pendingConfirmation(), 10000);
    const QString confirmation = m_panel->writeGate()->pendingConfirmation()->informativeText();
    QVERIFY2(
        confirmation.contains(u"{\"metadata\":{\"resourceVersion\":\"%1\"},\"spec\":"_s.arg(stale)),
        qPrintable(confirmation));
    button(m_panel->writeGate()->pendingConfirmation(), u"Cancel"_s)->click();
    QVERIFY(sendConfirmed());
    const QString shown = m_panel->resultView()->toPlainText();
    QVERIFY2(shown.contains(u"HTTP 409"_s), qPrintable(shown));
    QVERIFY(shown.contains(u"\"reason\": \"Conflict\""_s));
    QCOMPARE_JSON(m_fx->get(customApps, u"web"_s)["spec"]["replicas"], 2);
}

void tst_PatchLabPanel::copyAndExport()
{
    m_session->setWritesEnabled(true);
    m_panel->applyTemplate(lab::PatchTemplate::ClearConditions);
    QVERIFY(sendConfirmed());
    const auto &e = m_panel->lab()->history().last();
    const QString command = m_panel->copyKubectl();
    QCOMPARE(command, e.kubectl);
    QVERIFY(command.startsWith(u"kubectl patch customapps.infrastructure.internal.net web -n "
                               "default --subresource=status --type=merge -p '"_s));
    QCOMPARE(QGuiApplication::clipboard()->text(), command);

    QTemporaryDir dir;
    const QString path = dir.filePath(u"history.json"_s);
    QVERIFY(m_panel->exportHistory(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const json exported = json::parse(file.readAll().toStdString(), nullptr, false);
    QCOMPARE(exported["experiments"].size(), std::size_t(1));
    QCOMPARE_JSON(exported["experiments"][0]["kubectl"], command.toStdString());
}

QTEST_MAIN(tst_PatchLabPanel)
#include "tst_patchlabpanel.moc"
