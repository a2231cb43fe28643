// The console on a cluster reached through its kind-shaped kubeconfig, on both servers (the
// embedded cluster and the real control plane). The session connects with the admin context (mTLS
// client certificate), shows the objects, and is read-only — the New CustomApp dialog, the YAML
// editor, a panel's patch and the scenario player are all refused, nothing reaches the server —
// until the context's write switch is turned on; then the dialog's create and the editor's update
// go through.
#include "controller/console/consolesession.h"
#include "controller/console/scenarioplayer.h"
#include "models/resourcetablemodel.h"
#include "tests/e2e/e2eserver.h"
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
#include <QStandardPaths>
#include <QtTest>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using nlohmann::json;
using reconscope::controller::console::ScenarioPlayer;
using reconscope::tests::e2e::E2eServer;
using reconscope::tests::e2e::Role;

namespace {
constexpr int Timeout = 30000;
}

class tst_E2eConsole final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The write switch is remembered per context: not from an earlier run.
        QStandardPaths::setTestModeEnabled(true);
    }
    void readOnlyUntilEnabled();
};

void tst_E2eConsole::readOnlyUntilEnabled()
{
    QString error;
    const auto server = E2eServer::fromEnvironment(&error);
    QVERIFY2(server, qPrintable(error));
    QVERIFY2(server->installCustomAppCrd(&error), qPrintable(error));
    const QString ns = server->createNamespace(u"e2e-console"_s);
    QVERIFY(!ns.isEmpty());
    const QString apps = u"/apis/infrastructure.internal.net/v1/namespaces/%1/customapps"_s.arg(ns);
    for (const char *name : { "web", "api" })
        QVERIFY(server->sendJson("POST",
                                 apps,
                                 reconscope::tests::e2e::customAppManifest(
                                     QString::fromLatin1(name), u"nginx:1.27"_s, 3)));
    auto replicasOfWeb = [&] {
        const auto web = server->getJson(apps + u"/web"_s);
        return web ? (*web)["spec"].value("replicas", -1) : -1;
    };

    ConsoleSession session;
    MainWindow window(&session);
    QVERIFY(session.openKubeconfig(server->kubeconfigPath(), server->context(Role::Admin)).ok());
    session.setNamespaceFilter(ns);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Connected over mTLS, objects shown.
    QVERIFY(!session.isDemo());
    QVERIFY(session.serverUrl().startsWith(u"https://127.0.0.1:"_s));
    QVERIFY(!session.client()->config().clientCertificate.isNull());
    QVERIFY(!session.client()->config().caCertificates.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(ns + u"/web"_s) >= 0, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), 2, Timeout);
    QVERIFY(!session.writesEnabled());
    QVERIFY(!window.scenarioPanel()->isVisibleTo(&window)); // no demo scenario on a real cluster

    // The scenario player has no client here: its steps fail, nothing is sent.
    ScenarioPlayer *player = session.scenarioPlayer();
    QSignalSpy stepFinished(player, &ScenarioPlayer::stepFinished);
    player->stepNow();
    QTRY_COMPARE_WITH_TIMEOUT(stepFinished.count(), 1, Timeout);
    QVERIFY(!stepFinished.at(0).at(1).toBool());
    QVERIFY(!server->getJson(u"/api/v1/namespaces/tour"_s));

    // The dialog is refused.
    auto *dialog = window.openNewObjectDialog();
    QVERIFY(dialog);
    reconscope::models::CustomAppForm form;
    form.name = u"by-hand"_s;
    form.namespaceName = ns;
    form.image = u"nginx:1.27"_s;
    dialog->setForm(form);
    QSignalSpy created(dialog, &CustomAppDialog::created);
    dialog->submit();
    QTRY_VERIFY_WITH_TIMEOUT(dialog->errorLabel()->isVisible(), Timeout);
    QVERIFY2(dialog->errorLabel()->text().contains(u"writes are disabled"_s),
             qPrintable(dialog->errorLabel()->text()));
    QCOMPARE(created.count(), 0);

    // The YAML editor is refused, its text kept.
    QVERIFY(window.tablePanel()->selectKey(ns + u"/web"_s));
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
    session.patchObject(
        ns, u"web"_s, R"({"metadata":{"labels":{"x":"y"}}})", QString(), [&refused](auto result) {
            refused = !result.ok() && result.error().reason == u"Forbidden"_s;
        });
    QTRY_VERIFY_WITH_TIMEOUT(refused, Timeout);

    // Nothing reached the server.
    QVERIFY(!server->getJson(apps + u"/by-hand"_s));
    QCOMPARE(replicasOfWeb(), 3);

    // The user turns writes on for this context (the context picker's switch).
    auto *writeSwitch = window.contextPicker()->writesSwitch();
    QVERIFY(writeSwitch);
    QVERIFY(writeSwitch->isEnabled());
    QVERIFY(!writeSwitch->isChecked());
    writeSwitch->click();
    QVERIFY(session.writesEnabled());

    dialog->submit();
    QTRY_COMPARE_WITH_TIMEOUT(created.count(), 1, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(ns + u"/by-hand"_s) >= 0, Timeout);

    QSignalSpy applied(editor, &YamlEditor::applied);
    editor->apply();
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, Timeout);
    QCOMPARE(replicasOfWeb(), 4);
}

QTEST_MAIN(tst_E2eConsole)
#include "tst_e2econsole.moc"
