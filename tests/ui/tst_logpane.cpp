// The log pane: spdlog messages from any thread arrive in batches on the UI thread; level, text
// and the one-click Conflict filter, whose count is what `grep -i Conflict` would print.
#include "models/logmodel.h"
#include "ui/logpane.h"
#include "ui/logsink.h"

#include <spdlog/spdlog.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

#include <thread>
#include <vector>

using namespace Qt::StringLiterals;
using reconscope::models::LogModel;
using reconscope::models::LogRecord;
using reconscope::ui::LogPane;

class tst_LogPane : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void messagesArriveBatched();
    void threadsLogSafely();
    void conflictFilterCounts();
    void levelAndTextFilters();
    void sinkOutlivesPane();

private:
    QStringList shownLines() const
    {
        QStringList lines;
        const auto *model = m_pane->view()->model();
        for (int row = 0; row < model->rowCount(); ++row)
            lines << model->index(row, 0).data().toString();
        return lines;
    }

    std::unique_ptr<LogPane> m_pane;
    std::shared_ptr<spdlog::logger> m_logger;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

void tst_LogPane::init()
{
    m_pane = std::make_unique<LogPane>(nullptr, 5000);
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_pane->filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_logger = std::make_shared<spdlog::logger>("reconcile", m_pane->sink());
    m_logger->set_level(spdlog::level::trace);
    m_pane->show();
}

void tst_LogPane::cleanup()
{
    m_logger.reset();
    m_tester.reset();
    m_pane.reset();
}

void tst_LogPane::messagesArriveBatched()
{
    QSignalSpy inserted(m_pane->model(), &QAbstractItemModel::rowsInserted);
    for (int i = 0; i < 50; ++i)
        m_logger->info("reconcile default/web-{}: success", i);
    QCOMPARE(m_pane->model()->rowCount(), 0); // nothing until the UI thread's loop runs
    QTRY_COMPARE(m_pane->model()->rowCount(), 50);
    QCOMPARE(inserted.count(), 1); // one batch
    const LogRecord &first = m_pane->model()->record(0);
    QCOMPARE(first.logger, u"reconcile"_s);
    QCOMPARE(first.level, LogRecord::Info);
    QCOMPARE(first.text, u"reconcile default/web-0: success"_s);
    QVERIFY(qAbs(first.time.msecsTo(QDateTime::currentDateTimeUtc())) < 60000);
    QCOMPARE(m_pane->countLabel()->text(), u"50 of 50 lines"_s);
}

void tst_LogPane::threadsLogSafely()
{
    QSignalSpy inserted(m_pane->model(), &QAbstractItemModel::rowsInserted);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([logger = m_logger, t] {
            for (int i = 0; i < 250; ++i) {
                if (i % 10 == 0)
                    logger->warn("worker {}: status write: Conflict (409) #{}", t, i);
                else
                    logger->debug("worker {}: event {}", t, i);
            }
        });
    }
    for (auto &thread : threads)
        thread.join();
    QTRY_COMPARE(m_pane->model()->rowCount(), 1000);
    QCOMPARE(inserted.count(), 1); // everything queued before the loop ran: one batch
    QCOMPARE(m_pane->model()->conflictCount(), 100);
}

void tst_LogPane::conflictFilterCounts()
{
    m_logger->info("reconcile default/web: success (1 writes)");
    m_logger->warn("PUT /status: Conflict (409): Operation cannot be fulfilled on "
                   "customapps.infrastructure.internal.net \"web\": the object has been modified");
    m_logger->info("retrying after a CONFLICT");
    m_logger->info("conflicts are counted by the lab");
    m_logger->info("no con-flict here");
    m_logger->debug("conflict at debug level"); // counted: grep does not know levels
    QTRY_COMPARE(m_pane->model()->rowCount(), 6);
    QCOMPARE(m_pane->conflictButton()->text(), u"Conflict (4)"_s);

    // One click: only the conflict lines (those of the shown levels).
    QTest::mouseClick(m_pane->conflictButton(), Qt::LeftButton);
    QVERIFY(m_pane->conflictButton()->isChecked());
    QCOMPARE(shownLines().size(), 3); // the debug one is below the default level (info)
    for (const auto &line : shownLines())
        QVERIFY2(line.contains(u"conflict"_s, Qt::CaseInsensitive), qPrintable(line));
    m_pane->setMinimumLevel(LogRecord::Trace);
    QCOMPARE(shownLines().size(), 4);
    QCOMPARE(m_pane->countLabel()->text(), u"4 of 6 lines"_s);

    // New lines update the count and, when they match, the filtered view.
    m_logger->error("leader election: Conflict on lease");
    m_logger->info("steady");
    QTRY_COMPARE(m_pane->conflictButton()->text(), u"Conflict (5)"_s);
    QCOMPARE(shownLines().size(), 5);

    QTest::mouseClick(m_pane->conflictButton(), Qt::LeftButton);
    QCOMPARE(shownLines().size(), 8);
}

void tst_LogPane::levelAndTextFilters()
{
    m_logger->trace("t");
    m_logger->debug("d");
    m_logger->info("informer synced customapps");
    m_logger->warn("watch dropped, reconnecting");
    m_logger->error("status write failed");
    m_logger->critical("giving up");
    QTRY_COMPARE(m_pane->model()->rowCount(), 6);
    QCOMPARE(m_pane->levelPicker()->currentText(), u"info"_s); // the default
    QCOMPARE(shownLines().size(), 4);
    m_pane->levelPicker()->setCurrentIndex(m_pane->levelPicker()->findText(u"error"_s));
    QCOMPARE(shownLines().size(), 2);
    m_pane->levelPicker()->setCurrentIndex(m_pane->levelPicker()->findText(u"trace"_s));
    QCOMPARE(shownLines().size(), 6);
    QTest::keyClicks(m_pane->textFilter(), u"STATUS"_s);
    QCOMPARE(shownLines().size(), 1);
    QVERIFY(shownLines().constFirst().endsWith(u"error [reconcile] status write failed"_s));
    m_pane->textFilter()->clear();
    QCOMPARE(shownLines().size(), 6);
}

void tst_LogPane::sinkOutlivesPane()
{
    m_logger->info("before");
    QTRY_COMPARE(m_pane->model()->rowCount(), 1);
    m_tester.reset();
    m_pane.reset();
    // spdlog still holds the sink: logging must neither crash nor post to the dead pane.
    m_logger->info("after");
    QCoreApplication::processEvents();
}

QTEST_MAIN(tst_LogPane)
#include "tst_logpane.moc"
