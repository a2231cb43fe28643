#include "controller/cluster/selectors.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

enum class Token {
    End,
    Identifier,
    DoesNotExist,
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Open,
    Close,
    Comma,
    Greater,
    Less
};

struct Lexer
{
    QStringView input;
    qsizetype pos = 0;

    static bool isSpecial(QChar c)
    {
        return c == u'=' || c == u'!' || c == u'(' || c == u')' || c == u',' || c == u'<'
            || c == u'>';
    }

    std::pair<Token, QString> next()
    {
        while (pos < input.size() && input[pos].isSpace())
            ++pos;
        if (pos >= input.size())
            return { Token::End, {} };
        const QChar c = input[pos];
        auto two = [&](QStringView s) {
            return input.mid(pos).startsWith(s);
        };
        if (two(u"==")) {
            pos += 2;
            return { Token::DoubleEquals, u"=="_s };
        }
        if (two(u"!=")) {
            pos += 2;
            return { Token::NotEquals, u"!="_s };
        }
        ++pos;
        switch (c.unicode()) {
        case '=':
            return { Token::Equals, u"="_s };
        case '!':
            return { Token::DoesNotExist, u"!"_s };
        case '(':
            return { Token::Open, u"("_s };
        case ')':
            return { Token::Close, u")"_s };
        case ',':
            return { Token::Comma, u","_s };
        case '>':
            return { Token::Greater, u">"_s };
        case '<':
            return { Token::Less, u"<"_s };
        default:
            break;
        }
        const qsizetype start = pos - 1;
        while (pos < input.size() && !input[pos].isSpace() && !isSpecial(input[pos]))
            ++pos;
        const QString word = input.mid(start, pos - start).toString();
        if (word == u"in")
            return { Token::In, word };
        if (word == u"notin")
            return { Token::NotIn, word };
        return { Token::Identifier, word };
    }

    std::pair<Token, QString> peek()
    {
        const qsizetype saved = pos;
        auto token = next();
        pos = saved;
        return token;
    }
};

models::Error parseError(const QString &found, const QString &expected)
{
    return models::Error{ u"unable to parse requirement: found '%1', expected: %2"_s.arg(
        found, expected) };
}

} // namespace

models::Result<LabelSelector> LabelSelector::parse(const QString &text)
{
    LabelSelector selector;
    Lexer lexer{ QStringView(text) };
    if (lexer.peek().first == Token::End)
        return selector;
    for (;;) {
        Requirement requirement;
        auto [token, literal] = lexer.next();
        bool negatedExistence = false;
        if (token == Token::DoesNotExist) {
            negatedExistence = true;
            std::tie(token, literal) = lexer.next();
        }
        if (token != Token::Identifier)
            return parseError(literal, u"identifier"_s);
        requirement.key = literal;
        auto [opToken, opLiteral] = lexer.peek();
        if (negatedExistence) {
            if (opToken != Token::End && opToken != Token::Comma)
                return parseError(opLiteral, u"',' or 'end of string'"_s);
            requirement.op = Op::DoesNotExist;
        } else if (opToken == Token::End || opToken == Token::Comma) {
            requirement.op = Op::Exists;
        } else {
            lexer.next();
            switch (opToken) {
            case Token::Equals:
            case Token::DoubleEquals:
                requirement.op = Op::Equals;
                break;
            case Token::NotEquals:
                requirement.op = Op::NotEquals;
                break;
            case Token::In:
                requirement.op = Op::In;
                break;
            case Token::NotIn:
                requirement.op = Op::NotIn;
                break;
            case Token::Greater:
                requirement.op = Op::GreaterThan;
                break;
            case Token::Less:
                requirement.op = Op::LessThan;
                break;
            default:
                return parseError(opLiteral, u"=, !=, ==, in, notin, >, <"_s);
            }
            if (requirement.op == Op::In || requirement.op == Op::NotIn) {
                auto [open, openLiteral] = lexer.next();
                if (open != Token::Open)
                    return parseError(openLiteral, u"'('"_s);
                for (;;) {
                    auto [value, valueLiteral] = lexer.next();
                    if (value == Token::Close && requirement.values.isEmpty())
                        break;
                    if (value == Token::Comma) { // empty value
                        requirement.values.append(QString());
                        continue;
                    }
                    if (value == Token::Close) {
                        break;
                    }
                    if (value != Token::Identifier)
                        return parseError(valueLiteral, u"',', ')' or identifier"_s);
                    requirement.values.append(valueLiteral);
                    auto [separator, separatorLiteral] = lexer.next();
                    if (separator == Token::Close)
                        break;
                    if (separator != Token::Comma)
                        return parseError(separatorLiteral, u"',' or ')'"_s);
                }
                if (requirement.values.isEmpty())
                    return models::Error{
                        u"for 'in', 'notin' operators, values set can't be empty"_s
                    };
            } else {
                auto [value, valueLiteral] = lexer.peek();
                if (value == Token::Identifier) {
                    lexer.next();
                    requirement.values.append(valueLiteral);
                } else if (value == Token::End || value == Token::Comma) {
                    requirement.values.append(QString());
                } else {
                    return parseError(valueLiteral, u"identifier"_s);
                }
                if (requirement.op == Op::GreaterThan || requirement.op == Op::LessThan) {
                    bool ok = false;
                    requirement.values.first().toLongLong(&ok);
                    if (!ok)
                        return models::Error{
                            u"for 'Gt', 'Lt' operators, the value must be an integer"_s
                        };
                }
            }
        }
        selector.m_requirements.push_back(std::move(requirement));
        auto [separator, separatorLiteral] = lexer.next();
        if (separator == Token::End)
            break;
        if (separator != Token::Comma)
            return parseError(separatorLiteral, u"',' or 'end of string'"_s);
    }
    std::stable_sort(selector.m_requirements.begin(),
                     selector.m_requirements.end(),
                     [](const Requirement &a, const Requirement &b) { return a.key < b.key; });
    return selector;
}

bool LabelSelector::matches(const LabelSet &labels) const
{
    auto find = [&](const QString &key) -> const QString * {
        auto it = std::lower_bound(
            labels.begin(), labels.end(), key, [](const auto &pair, const QString &k) {
                return pair.first < k;
            });
        if (it != labels.end() && it->first == key)
            return &it->second;
        return nullptr;
    };
    for (const Requirement &requirement : m_requirements) {
        const QString *value = find(requirement.key);
        switch (requirement.op) {
        case Op::Equals:
        case Op::In:
            if (!value || !requirement.values.contains(*value))
                return false;
            break;
        case Op::NotEquals:
        case Op::NotIn:
            if (value && requirement.values.contains(*value))
                return false;
            break;
        case Op::Exists:
            if (!value)
                return false;
            break;
        case Op::DoesNotExist:
            if (value)
                return false;
            break;
        case Op::GreaterThan:
        case Op::LessThan: {
            if (!value)
                return false;
            bool ok = false;
            const qint64 have = value->toLongLong(&ok);
            if (!ok)
                return false;
            const qint64 want = requirement.values.first().toLongLong();
            if (requirement.op == Op::GreaterThan ? !(have > want) : !(have < want))
                return false;
            break;
        }
        }
    }
    return true;
}

models::Result<FieldSelector> FieldSelector::parse(const QString &text)
{
    FieldSelector selector;
    if (text.trimmed().isEmpty())
        return selector;
    // Split on unescaped commas.
    QStringList parts;
    QString current;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == u'\\' && i + 1 < text.size()) {
            current += c;
            current += text[++i];
        } else if (c == u',') {
            parts.append(current);
            current.clear();
        } else {
            current += c;
        }
    }
    parts.append(current);
    auto unescape = [](QStringView s) -> std::optional<QString> {
        QString out;
        for (qsizetype i = 0; i < s.size(); ++i) {
            if (s[i] == u'\\') {
                if (i + 1 >= s.size())
                    return std::nullopt;
                const QChar n = s[++i];
                if (n != u'\\' && n != u',' && n != u'=')
                    return std::nullopt;
                out += n;
            } else {
                out += s[i];
            }
        }
        return out;
    };
    for (const QString &part : std::as_const(parts)) {
        Term term;
        qsizetype op = -1;
        qsizetype opLength = 0;
        for (qsizetype i = 0; i < part.size(); ++i) {
            if (part[i] == u'\\') {
                ++i;
                continue;
            }
            if (part.mid(i).startsWith(u"!=")) {
                op = i, opLength = 2, term.negated = true;
                break;
            }
            if (part.mid(i).startsWith(u"==")) {
                op = i, opLength = 2;
                break;
            }
            if (part[i] == u'=') {
                op = i, opLength = 1;
                break;
            }
        }
        if (op < 0)
            return models::Error{ u"invalid selector: '%1'; can't understand '%2'"_s.arg(text,
                                                                                         part) };
        const auto field = unescape(QStringView(part).left(op).trimmed());
        const auto value = unescape(QStringView(part).mid(op + opLength));
        if (!field || !value)
            return models::Error{ u"invalid field selector: '%1'"_s.arg(text) };
        term.field = *field;
        term.value = *value;
        selector.m_terms.push_back(std::move(term));
    }
    return selector;
}

bool FieldSelector::matches(const std::function<QString(const QString &field)> &valueOf) const
{
    for (const Term &term : m_terms) {
        const bool equal = valueOf(term.field) == term.value;
        if (equal == term.negated)
            return false;
    }
    return true;
}

} // namespace reconscope::controller::cluster
