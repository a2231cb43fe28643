#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>

#include <vector>

namespace reconscope::controller::reconcile {

// Label name/value pairs of one series, in the order they are rendered.
using MetricLabels = QList<QPair<QString, QString>>;

// A small metrics registry with Prometheus' data model (counters, gauges, histograms with labels)
// and its text exposition format 0.0.4, so the reconciler's numbers read like controller-runtime's
// /metrics endpoint.
class Metrics
{
public:
    enum class Type { Counter, Gauge, Histogram };

    struct HistogramValue
    {
        std::vector<double> bounds; // upper bounds, ascending, without +Inf
        std::vector<quint64> counts; // per bucket (not cumulative); one more for +Inf
        double sum = 0;
        quint64 count = 0;
    };

    // Declares a family; series are created on first use. Re-declaring a name is ignored.
    void
    declare(const QString &name, Type type, const QString &help, std::vector<double> buckets = {});
    bool isDeclared(const QString &name) const { return m_families.contains(name); }

    // Creates the series (0, or an empty histogram) if it does not exist yet.
    void ensure(const QString &name, const MetricLabels &labels);
    // Counter: value += delta (delta >= 0). Gauge: value += delta.
    void add(const QString &name, const MetricLabels &labels, double delta = 1.0);
    // Gauge (or a counter mirrored from another source): value = v.
    void set(const QString &name, const MetricLabels &labels, double v);
    // Histogram: one observation.
    void observe(const QString &name, const MetricLabels &labels, double v);

    // Counter/gauge value, 0 for a series never touched.
    double value(const QString &name, const MetricLabels &labels) const;
    HistogramValue histogram(const QString &name, const MetricLabels &labels) const;

    // The text exposition format (# HELP, # TYPE, one line per sample; histograms as _bucket with
    // cumulative counts and le labels, _sum and _count). Families in declaration order, series
    // sorted by their labels.
    QByteArray renderText() const;

    // Prometheus' float formatting: shortest round-trip form, +Inf, -Inf, NaN.
    static QByteArray formatValue(double v);
    static QByteArray escapeLabelValue(const QString &v);

private:
    struct Series
    {
        MetricLabels labels;
        double value = 0;
        HistogramValue histogram;
    };
    struct Family
    {
        QString name;
        Type type = Type::Counter;
        QString help;
        std::vector<double> buckets;
        QMap<QString, Series> series; // by canonical label text
    };

    Series *series(const QString &name, const MetricLabels &labels, Type expected);
    static QString seriesKey(const MetricLabels &labels);

    QMap<QString, Family> m_families;
    QList<QString> m_order;
};

// controller-runtime's reconcile_time_seconds buckets.
std::vector<double> reconcileTimeBuckets();

} // namespace reconscope::controller::reconcile
