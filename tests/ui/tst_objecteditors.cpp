// Creating and editing objects by hand on the embedded cluster: the "New CustomApp" dialog (checks
// as the user types, the server's refusals shown with the form kept), the YAML editor (an update
// with the resourceVersion in the text: 409 on a concurrent change, 422 from the schema, the text
// kept), and the main window's shortcuts (Ctrl+N, Ctrl+E).
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/customappdialog.h"
#include "ui/mainwindow.h"
#include "ui/resourcetablepanel.h"
#include "ui/yamleditor.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using Field = reconscope::models::CustomAppForm::Field;

namespace {
constexpr int Timeout = 30000;
}

class tst_ObjectEditors final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void dialogChecksAsTheUserTypes();
    void dialogCreates();
    void dialogShowsTheServersRefusal();
    void yamlEditorUpdates();
    void yamlEditorShowsConflictAndKeepsTheText();
    void yamlEditorShowsInvalid();
    void yamlEditorRefusesUnparsableText();
    void shortcutsOpenTheEditors();

private:
    qint64 generationOf(const QString &key) const
    {
        const int row = m_session->tableModel()->rowOf(key);
        const auto *entry = row >= 0 ? m_session->tableModel()->rowAt(row) : nullptr;
        return entry && entry->generation ? *entry->generation : -1;
    }

    std::unique_ptr<ConsoleSession> m_session;
};

void tst_ObjectEditors::initTestCase()
{
    m_session = std::make_unique<ConsoleSession>();
    m_session->setRunReconciler(false);
    m_session->setPlayScenario(false);
    QVERIFY(m_session->startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"demo/api"_s) >= 0, Timeout);
    QVERIFY(m_session->writesEnabled());
}

void tst_ObjectEditors::cleanupTestCase()
{
    m_session.reset();
}

void tst_ObjectEditors::dialogChecksAsTheUserTypes()
{
    CustomAppDialog dialog(m_session.get());
    QVERIFY(!dialog.createButton()->isEnabled());
    QCOMPARE(dialog.problemText(Field::Name), u"required"_s);
    QVERIFY(!dialog.problemText(Field::Image).isEmpty());
    dialog.nameEdit()->setText(u"Shop"_s);
    QVERIFY(dialog.problemText(Field::Name).startsWith(u"a lowercase RFC 1123 subdomain"_s));
    dialog.nameEdit()->setText(u"shop"_s);
    QVERIFY(dialog.problemText(Field::Name).isEmpty());
    dialog.imageEdit()->setText(u"nginx:1.27"_s);
    QVERIFY(dialog.createButton()->isEnabled());
    dialog.configEdit()->setPlainText(u"{\"a\": "_s);
    QCOMPARE(dialog.problemText(Field::ConfigJSON), u"not valid JSON"_s);
    QVERIFY(!dialog.createButton()->isEnabled());
    dialog.configEdit()->setPlainText(u"{\"a\": 1}"_s);
    dialog.replicasBox()->setValue(101);
    QVERIFY(!dialog.problemText(Field::Replicas).isEmpty());
    QVERIFY(!dialog.createButton()->isEnabled());
    dialog.replicasBox()->setValue(2);
    dialog.portBox()->setValue(0);
    QVERIFY(!dialog.createButton()->isEnabled());
    dialog.portBox()->setValue(80);
    QVERIFY(dialog.createButton()->isEnabled());
    // An invalid form is never sent.
    dialog.nameEdit()->clear();
    QSignalSpy created(&dialog, &CustomAppDialog::created);
    dialog.submit();
    QTest::qWait(50);
    QCOMPARE(created.count(), 0);
}

void tst_ObjectEditors::dialogCreates()
{
    CustomAppDialog dialog(m_session.get());
    reconscope::models::CustomAppForm form;
    form.name = u"made-by-hand"_s;
    form.namespaceName = u"demo"_s;
    form.image = u"nginx:1.27"_s;
    form.replicas = 2;
    form.configJSON = u"{\"logLevel\":\"debug\"}"_s;
    dialog.setForm(form);
    dialog.show();
    QSignalSpy created(&dialog, &CustomAppDialog::created);
    QTest::mouseClick(dialog.createButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(created.count(), 1, Timeout);
    QCOMPARE(created.at(0).at(0).toString(), u"demo/made-by-hand"_s);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"demo/made-by-hand"_s) >= 0, Timeout);
}

void tst_ObjectEditors::dialogShowsTheServersRefusal()
{
    CustomAppDialog dialog(m_session.get());
    reconscope::models::CustomAppForm form;
    form.name = u"web"_s; // the demo has one
    form.namespaceName = u"demo"_s;
    form.image = u"nginx:2"_s;
    dialog.setForm(form);
    dialog.show();
    dialog.submit();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.errorLabel()->isVisible(), Timeout);
    QVERIFY2(dialog.errorLabel()->text().contains(u"AlreadyExists"_s),
             qPrintable(dialog.errorLabel()->text()));
    QVERIFY(dialog.isVisible()); // still open, the form as typed
    QCOMPARE(dialog.imageEdit()->text(), u"nginx:2"_s);
    QVERIFY(dialog.createButton()->isEnabled());
}

void tst_ObjectEditors::yamlEditorUpdates()
{
    const qint64 before = generationOf(u"demo/api"_s);
    QVERIFY(before >= 1);
    YamlEditor editor(m_session.get(), ConsoleSession::CustomApps, u"demo/api"_s);
    QVERIFY(editor.loadFromCache());
    QString text = editor.editor()->toPlainText();
    QVERIFY2(text.contains(u"resourceVersion: "_s), qPrintable(text));
    QVERIFY2(text.contains(u"\n  replicas: 2\n"_s), qPrintable(text));
    QVERIFY(text.contains(u"configJSON: "_s));
    text.replace(u"\n  replicas: 2\n"_s, u"\n  replicas: 3\n"_s);
    editor.editor()->setPlainText(text);
    QSignalSpy applied(&editor, &YamlEditor::applied);
    editor.show();
    QTest::mouseClick(editor.applyButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, Timeout);
    QVERIFY(editor.errorText().isEmpty());
    QVERIFY(editor.messageLabel()->text().contains(u"Applied"_s));
    QVERIFY(editor.editor()->toPlainText().contains(u"\n  replicas: 3\n"_s));
    QTRY_COMPARE_WITH_TIMEOUT(generationOf(u"demo/api"_s), before + 1, Timeout);
}

void tst_ObjectEditors::yamlEditorShowsConflictAndKeepsTheText()
{
    YamlEditor editor(m_session.get(), ConsoleSession::CustomApps, u"demo/worker"_s);
    QVERIFY(editor.loadFromCache());
    QString text = editor.editor()->toPlainText();
    text.replace(u"image: ghcr.io/example/worker:missing"_s, u"image: ghcr.io/example/worker:2"_s);
    editor.editor()->setPlainText(text);

    // Someone else changes the object meanwhile.
    bool patched = false;
    m_session->patchObject(u"demo"_s,
                           u"worker"_s,
                           R"({"metadata":{"labels":{"touched":"yes"}}})",
                           QString(),
                           [&patched](auto result) { patched = result.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(patched, Timeout);

    editor.apply();
    QTRY_VERIFY_WITH_TIMEOUT(!editor.errorText().isEmpty(), Timeout);
    QVERIFY2(editor.errorText().contains(u"409"_s), qPrintable(editor.errorText()));
    QVERIFY(editor.errorText().contains(u"Reload"_s));
    QVERIFY(editor.messageLabel()->isVisibleTo(&editor));
    QCOMPARE(editor.editor()->toPlainText(), text); // kept as typed

    QSignalSpy reloaded(&editor, &YamlEditor::reloaded);
    editor.reload();
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 1, Timeout);
    QVERIFY(editor.editor()->toPlainText().contains(u"touched: "_s));
}

void tst_ObjectEditors::yamlEditorShowsInvalid()
{
    YamlEditor editor(m_session.get(), ConsoleSession::CustomApps, u"demo/web"_s);
    QVERIFY(editor.loadFromCache());
    QString text = editor.editor()->toPlainText();
    QVERIFY(text.contains(u"\n  replicas: 3\n"_s));
    text.replace(u"\n  replicas: 3\n"_s, u"\n  replicas: 500\n"_s);
    editor.editor()->setPlainText(text);
    editor.apply();
    QTRY_VERIFY_WITH_TIMEOUT(!editor.errorText().isEmpty(), Timeout);
    QVERIFY2(editor.errorText().contains(u"422"_s), qPrintable(editor.errorText()));
    QVERIFY2(editor.errorText().contains(u"spec.replicas"_s), qPrintable(editor.errorText()));
    QCOMPARE(editor.editor()->toPlainText(), text);
}

void tst_ObjectEditors::yamlEditorRefusesUnparsableText()
{
    YamlEditor editor(m_session.get(), ConsoleSession::CustomApps, u"demo/web"_s);
    QVERIFY(editor.loadFromCache());
    editor.editor()->setPlainText(u"metadata: [unclosed"_s);
    editor.apply();
    QVERIFY(editor.errorText().contains(u"does not parse"_s));
    QVERIFY(editor.loadFromCache());
    QString renamed = editor.editor()->toPlainText();
    renamed.replace(u"name: web\n"_s, u"name: web2\n"_s);
    editor.editor()->setPlainText(renamed);
    editor.apply();
    QVERIFY2(editor.errorText().contains(u"cannot rename"_s), qPrintable(editor.errorText()));
}

void tst_ObjectEditors::shortcutsOpenTheEditors()
{
    MainWindow window(m_session.get());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QTest::keyClick(&window, Qt::Key_N, Qt::ControlModifier);
    auto *dialog = window.findChild<CustomAppDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    dialog->close();

    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier); // nothing selected: no editor
    QVERIFY(!window.findChild<YamlEditor *>());
    QTRY_VERIFY_WITH_TIMEOUT(window.tablePanel()->selectKey(u"demo/web"_s), Timeout);
    QCOMPARE(window.tablePanel()->selectedKey(), u"demo/web"_s);
    window.activateWindow();
    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier);
    auto *editor = window.findChild<YamlEditor *>();
    QVERIFY(editor);
    QCOMPARE(editor->key(), u"demo/web"_s);
    QVERIFY(editor->editor()->toPlainText().contains(u"name: web\n"_s));
}

QTEST_MAIN(tst_ObjectEditors)
#include "tst_objecteditors.moc"
