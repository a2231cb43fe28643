#include "controller/console/consolesession.h"
#include "ui/contextpicker.h"
#include "uitestsupport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using reconscope::controller::kube::RestClient;

class tst_ContextPicker final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void listsContextsAndSwitches();
    void namespaceFilter();
    void writesNeedThePerContextSwitch();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<ContextPicker> m_picker;
};

void tst_ContextPicker::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_session = std::make_unique<ConsoleSession>();
    m_picker = std::make_unique<ContextPicker>(m_session.get());
    m_picker->show();
    const auto status
        = m_session->openKubeconfig(reconscope::tests::writeTwoContextKubeconfig(*m_dir));
    QVERIFY2(status.ok(), status.ok() ? "" : qPrintable(status.error().message));
}

void tst_ContextPicker::cleanup()
{
    m_picker.reset();
    m_session.reset();
    m_dir.reset();
}

void tst_ContextPicker::listsContextsAndSwitches()
{
    QComboBox *contexts = m_picker->contextBox();
    QCOMPARE(contexts->count(), 2);
    QCOMPARE(contexts->currentText(), u"staging"_s);
    QVERIFY(contexts->isEnabled());
    QCOMPARE(m_picker->serverLabel()->text(), u"http://127.0.0.1:1"_s);
    QSignalSpy connected(m_session.get(), &ConsoleSession::connected);
    contexts->setCurrentIndex(contexts->findText(u"prod"_s));
    emit contexts->activated(contexts->currentIndex());
    QCOMPARE(connected.size(), 1);
    QCOMPARE(m_session->contextName(), u"prod"_s);
    QCOMPARE(contexts->currentText(), u"prod"_s);
}

void tst_ContextPicker::namespaceFilter()
{
    QComboBox *namespaces = m_picker->namespaceBox();
    QCOMPARE(namespaces->itemText(0), u"All namespaces"_s);
    // Namespaces seen in batches are offered, sorted after "All namespaces".
    emit m_session->objectsChanged({ u"zeta/a"_s, u"alpha/b"_s, u"alpha/c"_s }, {});
    QCOMPARE(namespaces->count(), 3);
    QCOMPARE(namespaces->itemText(1), u"alpha"_s);
    QCOMPARE(namespaces->itemText(2), u"zeta"_s);
    // Typing a namespace filters the session.
    namespaces->lineEdit()->setText(u"team-a"_s);
    emit namespaces->lineEdit()->editingFinished();
    QCOMPARE(m_session->namespaceFilter(), u"team-a"_s);
    QVERIFY(m_session->informer()); // restarted on the namespace
    namespaces->setCurrentIndex(0);
    emit namespaces->activated(0);
    QCOMPARE(m_session->namespaceFilter(), QString());
}

void tst_ContextPicker::writesNeedThePerContextSwitch()
{
    QCheckBox *writes = m_picker->writesSwitch();
    QVERIFY(!m_session->isDemo());
    QVERIFY(writes->isEnabled());
    QVERIFY(!writes->isChecked());
    QVERIFY(!m_session->writesEnabled());
    // Refused before any request is sent.
    bool called = false;
    QString reason;
    m_session->patchObject(
        u"team-a"_s, u"web"_s, "{}", u"status"_s, [&](RestClient::JsonResult result) {
            called = true;
            reason = result.ok() ? QString() : result.error().reason;
        });
    QVERIFY(called);
    QCOMPARE(reason, u"Forbidden"_s);

    writes->setChecked(true);
    QVERIFY(m_session->writesEnabled());
    // Per context: prod is still read-only, staging keeps its switch.
    QVERIFY(m_session->switchContext(u"prod"_s).ok());
    QVERIFY(!m_session->writesEnabled());
    QVERIFY(!writes->isChecked());
    QVERIFY(m_session->switchContext(u"staging"_s).ok());
    QVERIFY(m_session->writesEnabled());
    QVERIFY(writes->isChecked());
}

QTEST_MAIN(tst_ContextPicker)
#include "tst_contextpicker.moc"
