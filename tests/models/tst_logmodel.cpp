// The log pane's model: the bounded ring, batched appends, the Conflict count (the seed's
// `grep -i Conflict`) through appends and evictions, and the filters; under
// QAbstractItemModelTester.
#include "models/logmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using reconscope::models::LogFilterModel;
using reconscope::models::LogModel;
using reconscope::models::LogRecord;

namespace {

LogRecord rec(const QString &text,
              LogRecord::Level level = LogRecord::Info,
              const QString &logger = u"reconscope"_s)
{
    LogRecord r;
    r.level = level;
    r.time = QDateTime(QDate(2026, 8, 9), QTime(0, 15, 0, 123), Qt::UTC);
    r.logger = logger;
    r.text = text;
    return r;
}

// What `grep -i Conflict` counts over the lines.
int grepCount(const QStringList &lines)
{
    int n = 0;
    for (const auto &l : lines)
        n += l.contains(u"conflict"_s, Qt::CaseInsensitive) ? 1 : 0;
    return n;
}

QStringList linesOf(const QAbstractItemModel &model)
{
    QStringList lines;
    for (int row = 0; row < model.rowCount(); ++row)
        lines << model.index(row, 0).data().toString();
    return lines;
}

} // namespace

class tst_LogModel : public QObject
{
    Q_OBJECT

private slots:
    void line();
    void appendAndCount();
    void ringEvictsOldest();
    void batchLargerThanCapacity();
    void shrinkCapacity();
    void clear();
    void filters();
    void conflictCountMatchesGrep_data();
    void conflictCountMatchesGrep();
};

void tst_LogModel::line()
{
    QCOMPARE(rec(u"hello"_s, LogRecord::Warn).line(),
             u"2026-08-09T00:15:00.123Z warning [reconscope] hello"_s);
    LogRecord noLogger = rec(u"x"_s);
    noLogger.logger.clear();
    QCOMPARE(noLogger.line(), u"2026-08-09T00:15:00.123Z info x"_s);
}

void tst_LogModel::appendAndCount()
{
    LogModel model(100);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy counted(&model, &LogModel::conflictCountChanged);
    model.append(
        { rec(u"reconcile default/web: success"_s),
          rec(u"PUT status: Conflict (409): Operation cannot be fulfilled"_s, LogRecord::Warn),
          rec(u"retrying after CONFLICT"_s) });
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(inserted.count(), 1); // one batch, one insertion
    QCOMPARE(model.conflictCount(), 2);
    QCOMPARE(counted.count(), 1);
    QCOMPARE(counted.last().at(0).toInt(), 2);
    QCOMPARE(model.index(1, 0).data(LogModel::LevelRole).toInt(), int(LogRecord::Warn));
    QCOMPARE(model.index(1, 0).data(LogModel::ConflictRole).toBool(), true);
    QCOMPARE(model.index(0, 0).data(LogModel::ConflictRole).toBool(), false);
    QCOMPARE(model.index(2, 0).data(LogModel::TextRole).toString(), u"retrying after CONFLICT"_s);
    model.append({});
    QCOMPARE(inserted.count(), 1);
    // A logger named after conflicts matches too: grep sees the whole line.
    model.append({ rec(u"started"_s, LogRecord::Info, u"conflictlab"_s) });
    QCOMPARE(model.conflictCount(), 3);
}

void tst_LogModel::ringEvictsOldest()
{
    LogModel model(5);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({ rec(u"conflict 0"_s), rec(u"a1"_s), rec(u"a2"_s) });
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    model.append({ rec(u"a3"_s), rec(u"a4"_s), rec(u"conflict 5"_s), rec(u"a6"_s) });
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(removed.count(), 1); // one removal for the evicted rows
    QCOMPARE(model.index(0, 0).data(LogModel::TextRole).toString(), u"a2"_s);
    QCOMPARE(model.index(4, 0).data(LogModel::TextRole).toString(), u"a6"_s);
    QCOMPARE(model.conflictCount(), 1); // "conflict 0" left, "conflict 5" came
    QCOMPARE(model.totalAppended(), 7);
    QCOMPARE(model.conflictCount(), grepCount(linesOf(model)));
}

void tst_LogModel::batchLargerThanCapacity()
{
    LogModel model(3);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({ rec(u"old conflict"_s) });
    QList<LogRecord> batch;
    for (int i = 0; i < 10; ++i)
        batch << rec(i % 4 == 0 ? u"Conflict %1"_s.arg(i) : u"line %1"_s.arg(i));
    model.append(batch);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, 0).data(LogModel::TextRole).toString(), u"line 7"_s);
    QCOMPARE(model.index(1, 0).data(LogModel::TextRole).toString(), u"Conflict 8"_s);
    QCOMPARE(model.conflictCount(), 1);
    QCOMPARE(model.conflictCount(), grepCount(linesOf(model)));
}

void tst_LogModel::shrinkCapacity()
{
    LogModel model(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({ rec(u"conflict a"_s), rec(u"b"_s), rec(u"conflict c"_s), rec(u"d"_s) });
    QSignalSpy counted(&model, &LogModel::conflictCountChanged);
    model.setCapacity(2);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.conflictCount(), 1);
    QCOMPARE(counted.count(), 1);
}

void tst_LogModel::clear()
{
    LogModel model(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({ rec(u"conflict"_s), rec(u"b"_s) });
    QSignalSpy counted(&model, &LogModel::conflictCountChanged);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.conflictCount(), 0);
    QCOMPARE(counted.count(), 1);
}

void tst_LogModel::filters()
{
    LogModel model(100);
    LogFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester tester(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append({ rec(u"trace detail"_s, LogRecord::Trace),
                   rec(u"Conflict on web"_s, LogRecord::Warn),
                   rec(u"reconcile web ok"_s, LogRecord::Info),
                   rec(u"conflict on db"_s, LogRecord::Debug),
                   rec(u"boom"_s, LogRecord::Error) });
    QCOMPARE(filter.rowCount(), 5);
    filter.setMinimumLevel(LogRecord::Info);
    QCOMPARE(filter.rowCount(), 3);
    filter.setConflictOnly(true);
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.index(0, 0).data(LogModel::TextRole).toString(), u"Conflict on web"_s);
    filter.setMinimumLevel(LogRecord::Trace);
    QCOMPARE(filter.rowCount(), 2);
    filter.setText(u"DB"_s);
    QCOMPARE(filter.rowCount(), 1);
    filter.setConflictOnly(false);
    filter.setText(u"web"_s);
    QCOMPARE(filter.rowCount(), 2);
    filter.setText(u"warning"_s); // the level is part of the line
    QCOMPARE(filter.rowCount(), 1);
    filter.setText(QString());
    // New records are filtered as they come.
    filter.setConflictOnly(true);
    model.append({ rec(u"another CONFLICT"_s), rec(u"unrelated"_s) });
    QCOMPARE(filter.rowCount(), 3);
}

void tst_LogModel::conflictCountMatchesGrep_data()
{
    QTest::addColumn<int>("capacity");
    QTest::addColumn<int>("records");
    QTest::addColumn<int>("batch");
    QTest::newRow("no eviction") << 1000 << 500 << 7;
    QTest::newRow("evicting") << 64 << 1000 << 13;
    QTest::newRow("tiny ring") << 1 << 100 << 3;
}

void tst_LogModel::conflictCountMatchesGrep()
{
    QFETCH(int, capacity);
    QFETCH(int, records);
    QFETCH(int, batch);
    LogModel model(capacity);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    static const QStringList texts{
        u"reconcile ok"_s,         u"Conflict (409): the object has been modified"_s,
        u"status write retried"_s, u"CONFLICT"_s,
        u"conflicts: 3"_s,         u"con flict is not one"_s
    };
    QList<LogRecord> pending;
    for (int i = 0; i < records; ++i) {
        pending << rec(texts[(i * 7 + i / 3) % texts.size()]);
        if (pending.size() == batch) {
            model.append(pending);
            pending.clear();
            QCOMPARE(model.conflictCount(), grepCount(linesOf(model)));
        }
    }
    model.append(pending);
    QCOMPARE(model.rowCount(), std::min(capacity, records));
    QCOMPARE(model.conflictCount(), grepCount(linesOf(model)));
}

QTEST_GUILESS_MAIN(tst_LogModel)
#include "tst_logmodel.moc"
