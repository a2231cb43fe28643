#include "metrics.h"

#include <QtGlobal>

#include <algorithm>
#include <charconv>
#include <cmath>

using namespace Qt::StringLiterals;

namespace reconscope::controller::reconcile {

std::vector<double> reconcileTimeBuckets()
{
    return { 0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
             0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
             6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60 };
}

void Metrics::declare(const QString &name,
                      Type type,
                      const QString &help,
                      std::vector<double> buckets)
{
    if (m_families.contains(name))
        return;
    std::sort(buckets.begin(), buckets.end());
    buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
    buckets.erase(std::remove_if(buckets.begin(),
                                 buckets.end(),
                                 [](double b) { return std::isinf(b) || std::isnan(b); }),
                  buckets.end());
    Family family;
    family.name = name;
    family.type = type;
    family.help = help;
    family.buckets = std::move(buckets);
    m_families.insert(name, std::move(family));
    m_order.append(name);
}

QString Metrics::seriesKey(const MetricLabels &labels)
{
    QString key;
    for (const auto &[name, value] : labels) {
        key += name;
        key += u'\x1f';
        key += value;
        key += u'\x1e';
    }
    return key;
}

Metrics::Series *Metrics::series(const QString &name, const MetricLabels &labels, Type expected)
{
    const auto family = m_families.find(name);
    if (family == m_families.end() || family->type != expected)
        return nullptr;
    const QString key = seriesKey(labels);
    auto it = family->series.find(key);
    if (it == family->series.end()) {
        Series s;
        s.labels = labels;
        if (expected == Type::Histogram) {
            s.histogram.bounds = family->buckets;
            s.histogram.counts.assign(family->buckets.size() + 1, 0);
        }
        it = family->series.insert(key, std::move(s));
    }
    return &it.value();
}

void Metrics::ensure(const QString &name, const MetricLabels &labels)
{
    const auto family = m_families.constFind(name);
    if (family != m_families.constEnd())
        series(name, labels, family->type);
}

void Metrics::add(const QString &name, const MetricLabels &labels, double delta)
{
    const auto family = m_families.constFind(name);
    if (family == m_families.constEnd() || family->type == Type::Histogram)
        return;
    if (family->type == Type::Counter && !(delta >= 0))
        return; // counters only go up
    if (Series *s = series(name, labels, family->type))
        s->value += delta;
}

void Metrics::set(const QString &name, const MetricLabels &labels, double v)
{
    const auto family = m_families.constFind(name);
    if (family == m_families.constEnd() || family->type == Type::Histogram)
        return;
    if (Series *s = series(name, labels, family->type))
        s->value = v;
}

void Metrics::observe(const QString &name, const MetricLabels &labels, double v)
{
    Series *s = series(name, labels, Type::Histogram);
    if (!s)
        return;
    auto &h = s->histogram;
    const auto bucket = std::lower_bound(h.bounds.begin(), h.bounds.end(), v) - h.bounds.begin();
    ++h.counts[size_t(bucket)]; // le is inclusive: v == bound falls into that bucket
    h.sum += v;
    ++h.count;
}

double Metrics::value(const QString &name, const MetricLabels &labels) const
{
    const auto family = m_families.constFind(name);
    if (family == m_families.constEnd())
        return 0;
    return family->series.value(seriesKey(labels)).value;
}

Metrics::HistogramValue Metrics::histogram(const QString &name, const MetricLabels &labels) const
{
    const auto family = m_families.constFind(name);
    if (family == m_families.constEnd() || family->type != Type::Histogram)
        return {};
    const auto it = family->series.constFind(seriesKey(labels));
    if (it == family->series.constEnd()) {
        HistogramValue empty;
        empty.bounds = family->buckets;
        empty.counts.assign(family->buckets.size() + 1, 0);
        return empty;
    }
    return it->histogram;
}

QByteArray Metrics::formatValue(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    return QByteArray(buffer, int(result.ptr - buffer));
}

QByteArray Metrics::escapeLabelValue(const QString &v)
{
    QByteArray out;
    const QByteArray utf8 = v.toUtf8();
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

namespace {

QByteArray escapeHelp(const QString &help)
{
    QByteArray out;
    for (const char c : help.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray labelText(const MetricLabels &labels,
                     const QByteArray &extraName = {},
                     const QByteArray &extraValue = {})
{
    if (labels.isEmpty() && extraName.isEmpty())
        return {};
    QByteArray out = "{";
    bool first = true;
    for (const auto &[name, value] : labels) {
        if (!first)
            out += ',';
        first = false;
        out += name.toUtf8() + "=\"" + Metrics::escapeLabelValue(value) + '"';
    }
    if (!extraName.isEmpty()) {
        if (!first)
            out += ',';
        out += extraName + "=\"" + extraValue + '"';
    }
    return out + '}';
}

} // namespace

QByteArray Metrics::renderText() const
{
    QByteArray out;
    for (const QString &name : m_order) {
        const Family &family = m_families[name];
        const QByteArray n = name.toUtf8();
        out += "# HELP " + n + ' ' + escapeHelp(family.help) + '\n';
        switch (family.type) {
        case Type::Counter:
            out += "# TYPE " + n + " counter\n";
            break;
        case Type::Gauge:
            out += "# TYPE " + n + " gauge\n";
            break;
        case Type::Histogram:
            out += "# TYPE " + n + " histogram\n";
            break;
        }
        for (const Series &s : family.series) {
            if (family.type != Type::Histogram) {
                out += n + labelText(s.labels) + ' ' + formatValue(s.value) + '\n';
                continue;
            }
            const auto &h = s.histogram;
            quint64 cumulative = 0;
            for (size_t i = 0; i < h.bounds.size(); ++i) {
                cumulative += h.counts[i];
                out += n + "_bucket" + labelText(s.labels, "le", formatValue(h.bounds[i])) + ' '
                    + QByteArray::number(cumulative) + '\n';
            }
            cumulative += h.counts.back();
            out += n + "_bucket" + labelText(s.labels, "le", "+Inf") + ' '
                + QByteArray::number(cumulative) + '\n';
            out += n + "_sum" + labelText(s.labels) + ' ' + formatValue(h.sum) + '\n';
            out += n + "_count" + labelText(s.labels) + ' ' + QByteArray::number(h.count) + '\n';
        }
    }
    return out;
}

} // namespace reconscope::controller::reconcile
