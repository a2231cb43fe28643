#include "controller/cluster/schema/gofmt.h"

#include <QStringList>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster::gofmt {

QString quote(const QString &text)
{
    // Fast path: printable ASCII without quotes or backslashes needs no escaping.
    const bool plainAscii = std::all_of(text.begin(), text.end(), [](QChar c) {
        return c.unicode() >= 0x20 && c.unicode() < 0x7f && c != u'"' && c != u'\\';
    });
    if (plainAscii)
        return u'"' + text + u'"';
    QString out;
    out.reserve(text.size() + 2);
    out.append(u'"');
    for (const char32_t c : text.toUcs4()) {
        switch (c) {
        case U'"':
            out.append(u"\\\""_s);
            break;
        case U'\\':
            out.append(u"\\\\"_s);
            break;
        case U'\n':
            out.append(u"\\n"_s);
            break;
        case U'\t':
            out.append(u"\\t"_s);
            break;
        case U'\r':
            out.append(u"\\r"_s);
            break;
        case U'\a':
            out.append(u"\\a"_s);
            break;
        case U'\b':
            out.append(u"\\b"_s);
            break;
        case U'\f':
            out.append(u"\\f"_s);
            break;
        case U'\v':
            out.append(u"\\v"_s);
            break;
        default:
            if (c < 0x20 || c == 0x7f)
                out.append(u"\\x"_s + QString::number(uint(c), 16).rightJustified(2, u'0'));
            else if (!QChar::isPrint(c))
                out.append((c > 0xffff ? u"\\U"_s : u"\\u"_s)
                           + QString::number(uint(c), 16).rightJustified(c > 0xffff ? 8 : 4, u'0'));
            else
                out.append(QString::fromUcs4(&c, 1));
        }
    }
    out.append(u'"');
    return out;
}

QString quote(const std::string &text)
{
    return quote(QString::fromStdString(text));
}

static QString floatV(double value)
{
    if (std::isnan(value))
        return u"NaN"_s;
    if (std::isinf(value))
        return value > 0 ? u"+Inf"_s : u"-Inf"_s;
    if (value == std::floor(value) && std::fabs(value) < 1e21)
        return QString::number(value, 'f', 0);
    // nlohmann prints the shortest representation that round-trips, as Go's %v does.
    std::string text = nlohmann::json(value).dump();
    const auto e = text.find('e');
    if (e != std::string::npos && text.compare(e + 1, 1, "-") != 0
        && text.compare(e + 1, 1, "+") != 0)
        text.insert(e + 1, "+");
    return QString::fromStdString(text);
}

QString plain(const nlohmann::json &value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return u"<nil>"_s;
    case nlohmann::json::value_t::boolean:
        return value.get<bool>() ? u"true"_s : u"false"_s;
    case nlohmann::json::value_t::number_integer:
        return QString::number(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
        return QString::number(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
        return floatV(value.get<double>());
    case nlohmann::json::value_t::string:
        return QString::fromStdString(value.get<std::string>());
    default:
        return sharp(value);
    }
}

QString sharp(const nlohmann::json &value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return u"interface {}(nil)"_s;
    case nlohmann::json::value_t::string:
        return quote(value.get<std::string>());
    case nlohmann::json::value_t::object: {
        QStringList parts;
        for (auto it = value.begin(); it != value.end(); ++it)
            parts.append(quote(it.key()) + u':' + sharp(it.value()));
        return u"map[string]interface {}{"_s + parts.join(u", "_s) + u'}';
    }
    case nlohmann::json::value_t::array: {
        QStringList parts;
        for (const auto &item : value)
            parts.append(sharp(item));
        return u"[]interface {}{"_s + parts.join(u", "_s) + u'}';
    }
    default:
        return plain(value);
    }
}

QString marshal(const nlohmann::json &value)
{
    QString text = QString::fromStdString(
        value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    text.replace(u'<', u"\\u003c"_s)
        .replace(u'>', u"\\u003e"_s)
        .replace(u'&', u"\\u0026"_s)
        .replace(QChar(0x2028), u"\\u2028"_s)
        .replace(QChar(0x2029), u"\\u2029"_s);
    return text;
}

QString badValue(const nlohmann::json &value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return u"null"_s;
    case nlohmann::json::value_t::string:
        return quote(value.get<std::string>());
    case nlohmann::json::value_t::object:
    case nlohmann::json::value_t::array:
        return sharp(value);
    default:
        return plain(value);
    }
}

} // namespace reconscope::controller::cluster::gofmt
