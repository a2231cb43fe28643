#include "controller/reconcile/metrics.h"
#include "reconciletestutil.h"

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::reconcile;

namespace {

const MetricLabels kController = { { u"controller"_s, u"customapp"_s } };

MetricLabels withResult(const QString &result)
{
    MetricLabels labels = kController;
    labels.append({ u"result"_s, result });
    return labels;
}

} // namespace

class tst_Metrics : public QObject
{
    Q_OBJECT

private slots:
    void formatValue_data();
    void formatValue();
    void counterAndGaugeText();
    void labelValuesAreEscaped();
    void histogramBucketsAreCumulativeAndInclusive();
    void reconcileTimeBucketsMatchControllerRuntime();
    void ensureCreatesEmptySeries();
    void misuseIsIgnored();
    void orderIsStable();
};

void tst_Metrics::formatValue_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("zero") << 0.0 << QByteArray("0");
    QTest::newRow("integer") << 42.0 << QByteArray("42");
    QTest::newRow("bucket 0.005") << 0.005 << QByteArray("0.005");
    QTest::newRow("bucket 0.1") << 0.1 << QByteArray("0.1");
    QTest::newRow("bucket 1.25") << 1.25 << QByteArray("1.25");
    QTest::newRow("small") << 1e-05 << QByteArray("1e-05");
    QTest::newRow("negative") << -2.5 << QByteArray("-2.5");
    QTest::newRow("+Inf") << std::numeric_limits<double>::infinity() << QByteArray("+Inf");
    QTest::newRow("-Inf") << -std::numeric_limits<double>::infinity() << QByteArray("-Inf");
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << QByteArray("NaN");
}

void tst_Metrics::formatValue()
{
    QFETCH(double, value);
    QFETCH(QByteArray, expected);
    QCOMPARE(Metrics::formatValue(value), expected);
}

void tst_Metrics::counterAndGaugeText()
{
    Metrics m;
    m.declare(u"controller_runtime_reconcile_total"_s,
              Metrics::Type::Counter,
              u"Total number of reconciliations per controller"_s);
    m.declare(u"workqueue_depth"_s, Metrics::Type::Gauge, u"Current depth of workqueue"_s);
    m.add(u"controller_runtime_reconcile_total"_s, withResult(u"success"_s));
    m.add(u"controller_runtime_reconcile_total"_s, withResult(u"success"_s), 2);
    m.add(u"controller_runtime_reconcile_total"_s, withResult(u"error"_s));
    m.set(u"workqueue_depth"_s, { { u"name"_s, u"customapp"_s } }, 7);
    m.add(u"workqueue_depth"_s, { { u"name"_s, u"customapp"_s } }, -2);
    QCOMPARE(m.value(u"controller_runtime_reconcile_total"_s, withResult(u"success"_s)), 3.0);
    QCOMPARE(m.value(u"workqueue_depth"_s, { { u"name"_s, u"customapp"_s } }), 5.0);
    QCOMPARE(m.value(u"workqueue_depth"_s, { { u"name"_s, u"other"_s } }), 0.0);
    const QByteArray expected
        = "# HELP controller_runtime_reconcile_total Total number of reconciliations per "
          "controller\n"
          "# TYPE controller_runtime_reconcile_total counter\n"
          "controller_runtime_reconcile_total{controller=\"customapp\",result=\"error\"} 1\n"
          "controller_runtime_reconcile_total{controller=\"customapp\",result=\"success\"} 3\n"
          "# HELP workqueue_depth Current depth of workqueue\n"
          "# TYPE workqueue_depth gauge\n"
          "workqueue_depth{name=\"customapp\"} 5\n";
    QCOMPARE(m.renderText(), expected);
    QString bad;
    QVERIFY2(isValidPrometheusText(m.renderText(), &bad), qPrintable(bad));
}

void tst_Metrics::labelValuesAreEscaped()
{
    Metrics m;
    m.declare(u"reconscope_write_conflicts_total"_s,
              Metrics::Type::Counter,
              u"Conflicts\nper \\ writer"_s);
    m.add(u"reconscope_write_conflicts_total"_s, { { u"writer"_s, u"a\"b\\c\nd"_s } });
    m.add(u"reconscope_write_conflicts_total"_s, { { u"writer"_s, u"status-ü"_s } });
    const QByteArray text = m.renderText();
    QVERIFY2(text.contains("# HELP reconscope_write_conflicts_total Conflicts\\nper \\\\ writer\n"),
             text.constData());
    QVERIFY2(text.contains("{writer=\"a\\\"b\\\\c\\nd\"} 1\n"), text.constData());
    QVERIFY2(text.contains(QString(u"{writer=\"status-ü\"} 1\n"_s).toUtf8()), text.constData());
    QString bad;
    QVERIFY2(isValidPrometheusText(text, &bad), qPrintable(bad));
}

void tst_Metrics::histogramBucketsAreCumulativeAndInclusive()
{
    Metrics m;
    m.declare(u"h_seconds"_s, Metrics::Type::Histogram, u"A histogram"_s, { 1.0, 0.1, 0.5 });
    for (const double v : { 0.05, 0.1, 0.2, 0.5, 3.0 })
        m.observe(u"h_seconds"_s, kController, v);
    const auto h = m.histogram(u"h_seconds"_s, kController);
    QCOMPARE(h.count, quint64(5));
    QCOMPARE(h.sum, 3.85);
    QCOMPARE(h.counts, std::vector<quint64>({ 2, 2, 0, 1 }));
    const QByteArray expected = "# HELP h_seconds A histogram\n"
                                "# TYPE h_seconds histogram\n"
                                "h_seconds_bucket{controller=\"customapp\",le=\"0.1\"} 2\n"
                                "h_seconds_bucket{controller=\"customapp\",le=\"0.5\"} 4\n"
                                "h_seconds_bucket{controller=\"customapp\",le=\"1\"} 4\n"
                                "h_seconds_bucket{controller=\"customapp\",le=\"+Inf\"} 5\n"
                                "h_seconds_sum{controller=\"customapp\"} 3.85\n"
                                "h_seconds_count{controller=\"customapp\"} 5\n";
    QCOMPARE(m.renderText(), expected);
}

void tst_Metrics::reconcileTimeBucketsMatchControllerRuntime()
{
    const std::vector<double> buckets = reconcileTimeBuckets();
    QCOMPARE(buckets.size(), size_t(40));
    QCOMPARE(buckets.front(), 0.005);
    QCOMPARE(buckets.back(), 60.0);
    QVERIFY(std::is_sorted(buckets.begin(), buckets.end()));
    Metrics m;
    m.declare(u"controller_runtime_reconcile_time_seconds"_s,
              Metrics::Type::Histogram,
              u"Length of time per reconciliation per controller"_s,
              buckets);
    m.observe(u"controller_runtime_reconcile_time_seconds"_s, kController, 0.012);
    const QByteArray text = m.renderText();
    QVERIFY(text.contains("{controller=\"customapp\",le=\"0.01\"} 0\n"));
    QVERIFY(text.contains("{controller=\"customapp\",le=\"0.025\"} 1\n"));
    QVERIFY(text.contains("{controller=\"customapp\",le=\"60\"} 1\n"));
    QCOMPARE(text.count("_bucket{"), 41);
}

void tst_Metrics::ensureCreatesEmptySeries()
{
    Metrics m;
    m.declare(u"c_total"_s, Metrics::Type::Counter, u"c"_s);
    m.declare(u"h"_s, Metrics::Type::Histogram, u"h"_s, { 1 });
    m.ensure(u"c_total"_s, kController);
    m.ensure(u"h"_s, kController);
    const QByteArray text = m.renderText();
    QVERIFY(text.contains("c_total{controller=\"customapp\"} 0\n"));
    QVERIFY(text.contains("h_bucket{controller=\"customapp\",le=\"+Inf\"} 0\n"));
    QVERIFY(text.contains("h_count{controller=\"customapp\"} 0\n"));
    m.add(u"c_total"_s, kController);
    m.ensure(u"c_total"_s, kController); // does not reset
    QCOMPARE(m.value(u"c_total"_s, kController), 1.0);
}

void tst_Metrics::misuseIsIgnored()
{
    Metrics m;
    m.declare(u"c_total"_s, Metrics::Type::Counter, u"c"_s);
    m.declare(u"c_total"_s, Metrics::Type::Gauge, u"again"_s); // first declaration stays
    m.add(u"c_total"_s, kController, -5); // counters never go down
    m.observe(u"c_total"_s, kController, 1); // not a histogram
    m.add(u"undeclared"_s, kController);
    QCOMPARE(m.value(u"c_total"_s, kController), 0.0);
    QVERIFY(!m.isDeclared(u"undeclared"_s));
    QVERIFY(m.renderText().contains("# TYPE c_total counter\n# HELP") == false);
    QVERIFY(m.renderText().startsWith("# HELP c_total c\n# TYPE c_total counter\n"));
}

void tst_Metrics::orderIsStable()
{
    Metrics m;
    m.declare(u"z_total"_s, Metrics::Type::Counter, u"z"_s);
    m.declare(u"a_total"_s, Metrics::Type::Counter, u"a"_s);
    m.add(u"a_total"_s, { { u"w"_s, u"b"_s } });
    m.add(u"a_total"_s, { { u"w"_s, u"a"_s } });
    m.add(u"z_total"_s, {});
    const QByteArray text = m.renderText();
    QVERIFY(text.indexOf("z_total 1") < text.indexOf("a_total{"));
    QVERIFY(text.indexOf("a_total{w=\"a\"}") < text.indexOf("a_total{w=\"b\"}"));
    QCOMPARE(text, m.renderText());
}

QTEST_GUILESS_MAIN(tst_Metrics)
#include "tst_metrics.moc"
