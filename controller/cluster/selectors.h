#pragma once

#include "models/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace reconscope::controller::cluster {

// Labels of one object, sorted by key.
using LabelSet = std::vector<std::pair<QString, QString>>;

// A label selector in the full apimachinery grammar: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
// `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma-separated (all must hold).
class LabelSelector
{
public:
    enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
    struct Requirement
    {
        QString key;
        Op op = Op::Exists;
        QStringList values;
    };

    LabelSelector() = default; // selects everything
    // Parses the `labelSelector` query parameter; the error text is upstream's parse error.
    static models::Result<LabelSelector> parse(const QString &text);

    bool isEmpty() const { return m_requirements.empty(); }
    bool matches(const LabelSet &labels) const;
    const std::vector<Requirement> &requirements() const { return m_requirements; }

private:
    std::vector<Requirement> m_requirements;
};

// A field selector: `f=v`, `f==v`, `f!=v`, comma-separated, backslash escapes.
class FieldSelector
{
public:
    struct Term
    {
        QString field;
        QString value;
        bool negated = false;
    };

    FieldSelector() = default; // selects everything
    static models::Result<FieldSelector> parse(const QString &text);

    bool isEmpty() const { return m_terms.empty(); }
    const std::vector<Term> &terms() const { return m_terms; }
    // `valueOf(field)` returns the object's value of a field the caller has already checked is
    // supported.
    bool matches(const std::function<QString(const QString &field)> &valueOf) const;

private:
    std::vector<Term> m_terms;
};

} // namespace reconscope::controller::cluster
