#include "controller/kube/watchdecoder.h"

#include "models/jsonscan.h"

#include <nlohmann/json.hpp>

#include <functional>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;

namespace {

bool typeFromToken(QByteArrayView token, WatchEvent::Type *type)
{
    if (token == "\"ADDED\"")
        *type = WatchEvent::Type::Added;
    else if (token == "\"MODIFIED\"")
        *type = WatchEvent::Type::Modified;
    else if (token == "\"DELETED\"")
        *type = WatchEvent::Type::Deleted;
    else if (token == "\"BOOKMARK\"")
        *type = WatchEvent::Type::Bookmark;
    else if (token == "\"ERROR\"")
        *type = WatchEvent::Type::Error;
    else
        return false;
    return true;
}

QString excerpt(QByteArrayView line)
{
    constexpr qsizetype Max = 120;
    QString text = QString::fromUtf8(line.first(std::min(line.size(), Max)));
    if (line.size() > Max)
        text += u"..."_s;
    return text;
}

} // namespace

QString WatchEvent::typeName(Type type)
{
    switch (type) {
    case Type::Added:
        return u"ADDED"_s;
    case Type::Modified:
        return u"MODIFIED"_s;
    case Type::Deleted:
        return u"DELETED"_s;
    case Type::Bookmark:
        return u"BOOKMARK"_s;
    case Type::Error:
        return u"ERROR"_s;
    }
    return {};
}

bool WatchDecoder::decodeLine(QByteArrayView line, WatchEvent *event, QString *error)
{
    QByteArrayView typeToken;
    QByteArrayView object;
    ObjectMeta meta;
    models::jsonscan::Scanner scanner(line);
    bool valid = models::jsonscan::forEachMemberAt(scanner, [&](QByteArrayView key) {
        QByteArrayView value;
        scanner.skipWhitespace();
        if (key == "object" && scanner.peekIs('{')) {
            // The object is validated once, its metadata read on the way.
            const char *start = scanner.position();
            if (!ObjectMeta::read(scanner, 1, &meta))
                return false;
            object = QByteArrayView(start, scanner.position());
            return true;
        }
        if (!scanner.value(&value, 1))
            return false;
        if (key == "type")
            typeToken = value;
        else if (key == "object")
            object = value;
        return true;
    });
    scanner.skipWhitespace();
    valid = valid && scanner.atEnd();
    if (!valid) {
        *error = u"malformed watch event: %1"_s.arg(excerpt(line));
        return false;
    }
    WatchEvent decoded;
    if (!typeFromToken(typeToken, &decoded.type)) {
        *error = typeToken.isEmpty()
            ? u"watch event without a type: %1"_s.arg(excerpt(line))
            : u"unknown watch event type %1"_s.arg(QString::fromUtf8(typeToken));
        return false;
    }
    if (object.isEmpty() || object.front() != '{') {
        *error = u"watch event %1 without an object"_s.arg(WatchEvent::typeName(decoded.type));
        return false;
    }
    if (decoded.type == WatchEvent::Type::Error) {
        const auto json = nlohmann::json::parse(object.begin(), object.end(), nullptr, false);
        if (json.is_discarded() || !ApiError::fromStatusJson(json, &decoded.status)) {
            decoded.status
                = ApiError::make(ApiError::Category::Decode,
                                 u"watch ERROR event without a Status: %1"_s.arg(excerpt(object)));
        }
    }
    decoded.object = object.toByteArray();
    decoded.meta = std::move(meta);
    *event = std::move(decoded);
    return true;
}

void WatchDecoder::decode(QByteArrayView line)
{
    // Tolerate CRLF and blank keep-alive lines.
    while (!line.isEmpty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.chop(1);
    while (!line.isEmpty() && (line.front() == ' ' || line.front() == '\t'))
        line = line.sliced(1);
    if (line.isEmpty())
        return;
    WatchEvent event;
    if (!decodeLine(line, &event, &m_error))
        return;
    m_events.append(std::move(event));
}

void WatchDecoder::feed(QByteArrayView chunk)
{
    if (hasError())
        return;
    qsizetype from = 0;
    if (!m_pending.isEmpty()) {
        const auto newline = chunk.indexOf('\n');
        if (newline < 0) {
            m_pending.append(chunk);
            return;
        }
        m_pending.append(chunk.first(newline));
        decode(m_pending);
        m_pending.clear();
        from = newline + 1;
    }
    while (!hasError()) {
        const auto newline = chunk.indexOf('\n', from);
        if (newline < 0) {
            m_pending.append(chunk.sliced(from));
            return;
        }
        decode(chunk.sliced(from, newline - from));
        from = newline + 1;
    }
}

void WatchDecoder::finish()
{
    if (hasError() || m_pending.isEmpty())
        return;
    decode(m_pending);
    m_pending.clear();
}

QList<WatchEvent> WatchDecoder::takeEvents()
{
    return std::exchange(m_events, {});
}

void WatchDecoder::reset()
{
    m_pending.clear();
    m_events.clear();
    m_error.clear();
}

namespace {

// The bytes `part` of `whole` (which lies inside it) as a QByteArray holding a reference to whole's
// buffer rather than a copy, like a QByteArray that was prepended to: it detaches (copies) before
// any write while the buffer is shared. Not NUL-terminated, like QByteArray::fromRawData().
QByteArray sharedSlice(QByteArray whole, QByteArrayView part)
{
    auto *header = whole.data_ptr().d_ptr();
    if (!header || part.isEmpty())
        return part.toByteArray();
    header->ref();
    return QByteArray(
        QByteArray::DataPointer(header, const_cast<char *>(part.data()), part.size()));
}

bool decodeListPage(QByteArrayView body,
                    ListPage *page,
                    QString *error,
                    const std::function<QByteArray(QByteArrayView)> &item);

} // namespace

bool decodeListPage(QByteArrayView body, ListPage *page, QString *error)
{
    return decodeListPage(
        body, page, error, [](QByteArrayView item) { return item.toByteArray(); });
}

bool decodeListPageShared(const QByteArray &body, ListPage *page, QString *error)
{
    return decodeListPage(QByteArrayView(body), page, error, [&body](QByteArrayView item) {
        return sharedSlice(body, item);
    });
}

namespace {

bool decodeListPage(QByteArrayView body,
                    ListPage *page,
                    QString *error,
                    const std::function<QByteArray(QByteArrayView)> &makeItem)
{
    QByteArrayView items;
    QByteArrayView metadata;
    QByteArrayView kind;
    const bool valid
        = models::jsonscan::forEachMember(body, [&](QByteArrayView key, QByteArrayView value) {
              if (key == "items")
                  items = value;
              else if (key == "metadata")
                  metadata = value;
              else if (key == "kind")
                  kind = value;
              return true;
          });
    if (!valid) {
        *error = u"malformed list response: %1"_s.arg(excerpt(body));
        return false;
    }
    ListPage decoded;
    decoded.kind = models::jsonscan::toString(kind).value_or(QString());
    if (!items.isEmpty() && items != "null") {
        const bool itemsValid = models::jsonscan::forEachElement(items, [&](QByteArrayView item) {
            decoded.items.append(makeItem(item));
            return true;
        });
        if (!itemsValid) {
            *error = u"list response: items is not an array"_s;
            return false;
        }
    }
    if (!metadata.isEmpty()) {
        std::ignore = models::jsonscan::forEachMember(
            metadata, [&](QByteArrayView key, QByteArrayView value) {
                if (key == "resourceVersion")
                    decoded.resourceVersion = models::jsonscan::toString(value).value_or(QString());
                else if (key == "continue")
                    decoded.continueToken = models::jsonscan::toString(value).value_or(QString());
                return true;
            });
    }
    *page = std::move(decoded);
    return true;
}

} // namespace

} // namespace reconscope::controller::kube
