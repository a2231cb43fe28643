// The console on a "real" cluster: `reconscope serve` started as a separate process stands in for
// kind. The session connects through the kubeconfig it wrote (mTLS client certificate), shows the
// objects, and is read-only — the New CustomApp dialog, the YAML editor, a panel's patch and the
// scenario player are all refused, nothing reaches the server — until the context's write switch
// is turned on; then the dialog's create and the editor's update go through.
#include "../conformance/servefixture.h"

#include "controller/console/scenarioplayer.h"
#include "models/resourcetablemodel.h"
#include "ui/consolesession.h"
#include "ui/contextpicker.h"
#include "ui/customappdialog.h"
#include "ui/mainwindow.h"
#include "ui/resourcetablepanel.h"
#include "ui/scenariopanel.h"
#include "ui/yamleditor.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using reconscope::controller::console::ScenarioPlayer;

namespace {
constexpr int Timeout = 30000;
}

class tst_ConsoleRealCluster final : public QObject
{
    Q_OBJECT

private slots:
    void readOnlyUntilEnabled();
};

void tst_ConsoleRealCluster::readOnlyUntilEnabled()
{
    ServeFixture server;
    QVERIFY(server.start());

    ConsoleSession session;
    MainWindow window(&session);
    QVERIFY(session.openKubeconfig(server.kubeconfigPath(), u"reconscope-admin"_s).ok());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Connected over mTLS, objects shown.
    QVERIFY(!session.isDemo());
    QVERIFY(session.serverUrl().startsWith(u"https://127.0.0.1:"_s));
    QVERIFY(!session.client()->config().clientCertificate.isNull());
    QVERIFY(!session.client()->config().caCertificates.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(u"demo/web"_s) >= 0, Timeout);
    QVERIFY(session.tableModel()->rowCount() >= 5);
    QVERIFY(!session.writesEnabled());
    QVERIFY(!window.scenarioPanel()->isVisibleTo(&window)); // no demo scenario on a real cluster

    // The scenario player has no client here: its steps fail, nothing is sent.
    ScenarioPlayer *player = session.scenarioPlayer();
    QSignalSpy stepFinished(player, &ScenarioPlayer::stepFinished);
    player->stepNow();
    QTRY_COMPARE_WITH_TIMEOUT(stepFinished.count(), 1, Timeout);
    QVERIFY(!stepFinished.at(0).at(1).toBool());
    QVERIFY(!server.kubectl({ u"get"_s, u"namespace"_s, u"tour"_s }).out.contains(u"tour"_s));

    // The dialog is refused.
    auto *dialog = window.openNewObjectDialog();
    QVERIFY(dialog);
    reconscope::models::CustomAppForm form;
    form.name = u"by-hand"_s;
    form.namespaceName = u"demo"_s;
    form.image = u"nginx:1.27"_s;
    dialog->setForm(form);
    QSignalSpy created(dialog, &CustomAppDialog::created);
    dialog->submit();
    QTRY_VERIFY_WITH_TIMEOUT(dialog->errorLabel()->isVisible(), Timeout);
    QVERIFY2(dialog->errorLabel()->text().contains(u"writes are disabled"_s),
             qPrintable(dialog->errorLabel()->text()));
    QCOMPARE(created.count(), 0);

    // The YAML editor is refused, its text kept.
    QVERIFY(window.tablePanel()->selectKey(u"demo/web"_s));
    YamlEditor *editor = window.openYamlEditor();
    QVERIFY(editor);
    QString text = editor->editor()->toPlainText();
    QVERIFY2(text.contains(u"\n  replicas: 3\n"_s), qPrintable(text));
    text.replace(u"\n  replicas: 3\n"_s, u"\n  replicas: 4\n"_s);
    editor->editor()->setPlainText(text);
    editor->apply();
    QTRY_VERIFY_WITH_TIMEOUT(!editor->errorText().isEmpty(), Timeout);
    QVERIFY2(editor->errorText().contains(u"Forbidden"_s), qPrintable(editor->errorText()));
    QCOMPARE(editor->editor()->toPlainText(), text);

    // Any panel's write goes through the same switch.
    bool refused = false;
    session.patchObject(u"demo"_s,
                        u"web"_s,
                        R"({"metadata":{"labels":{"x":"y"}}})",
                        QString(),
                        [&refused](auto result) {
                            refused = !result.ok() && result.error().reason == u"Forbidden"_s;
                        });
    QTRY_VERIFY_WITH_TIMEOUT(refused, Timeout);

    // Nothing reached the server.
    const auto get = server.kubectl(
        { u"get"_s,
          u"customapps"_s,
          u"-n"_s,
          u"demo"_s,
          u"-o"_s,
          u"jsonpath={.items[*].metadata.name} {.items[?(@.metadata.name==\"web\")].spec.replicas}"_s });
    QCOMPARE(get.exitCode, 0);
    QVERIFY2(!get.out.contains(u"by-hand"_s), qPrintable(get.out));
    QVERIFY2(get.out.trimmed().endsWith(u" 3"_s), qPrintable(get.out));

    // The user turns writes on for this context (the context picker's switch).
    auto *writeSwitch = window.contextPicker()->writesSwitch();
    QVERIFY(writeSwitch);
    QVERIFY(writeSwitch->isEnabled());
    QVERIFY(!writeSwitch->isChecked());
    writeSwitch->click();
    QVERIFY(session.writesEnabled());

    dialog->submit();
    QTRY_COMPARE_WITH_TIMEOUT(created.count(), 1, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(u"demo/by-hand"_s) >= 0, Timeout);

    QSignalSpy applied(editor, &YamlEditor::applied);
    editor->apply();
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, Timeout);
    const auto after = server.kubectl({ u"get"_s,
                                        u"customapp"_s,
                                        u"web"_s,
                                        u"-n"_s,
                                        u"demo"_s,
                                        u"-o"_s,
                                        u"jsonpath={.spec.replicas}"_s });
    QCOMPARE(after.out.trimmed(), u"4"_s);
}

QTEST_MAIN(tst_ConsoleRealCluster)
#include "tst_consolerealcluster.moc"
