#include "controller/kube/fastlist/liststreamdecoder.h"

#include "models/jsonscan.h"

#include <QIODevice>

#include <algorithm>
#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

ListStreamDecoder::ListStreamDecoder(ItemCallback onItem)
    : m_onItem(std::move(onItem))
{ }

void ListStreamDecoder::fail(const QString &message)
{
    if (m_error.isEmpty())
        m_error = message;
    m_buffer.clear();
    m_pos = 0;
}

qsizetype ListStreamDecoder::makeRoom(qsizetype incoming)
{
    // Drop what was decoded (about one item is left at most) by moving the rest to the front
    // rather than letting QByteArray::remove() advance its start: with free space at its front,
    // the next growth of a QByteArray is a fresh allocation and a copy, so a 177 MB list went
    // through fresh pages (a page fault each 4 KB) for every chunk. The buffer's pages are
    // reused instead; it grows (geometrically) only when a chunk is bigger than any before.
    const qsizetype rest = m_buffer.size() - m_pos;
    if (m_pos > 0) {
        if (rest > 0)
            std::memmove(m_buffer.data(), m_buffer.constData() + m_pos, size_t(rest));
        m_buffer.resize(rest); // keeps the capacity
        m_retryAt -= m_pos;
        m_pos = 0;
    }
    if (m_buffer.capacity() < rest + incoming)
        m_buffer.reserve(std::max(rest + incoming, 2 * m_buffer.capacity()));
    return rest;
}

void ListStreamDecoder::feed(QByteArrayView chunk)
{
    if (hasError() || chunk.isEmpty())
        return;
    if (m_state == State::Done) {
        // Only whitespace may follow the list.
        models::jsonscan::Scanner scanner(chunk);
        scanner.skipWhitespace();
        if (!scanner.atEnd())
            fail(u"malformed list response: data after the list"_s);
        return;
    }
    // The chunk is decoded where it lies; only a value cut by its end is copied, to be completed
    // by the next chunks. A cut value takes from those no more than the scan needs to retry, and
    // once it is whole the rest of the chunk is decoded in place again.
    qsizetype at = 0; // chunk[0, at) is decoded or in the buffer
    while (at < chunk.size()) {
        if (pendingBytes() == 0) {
            const QByteArrayView rest = chunk.sliced(at);
            m_buffer.resize(0); // keeps the capacity
            m_pos = 0;
            m_retryAt = 0;
            while (step(rest, false)) { }
            if (hasError())
                return;
            const qsizetype decoded = m_pos;
            const qsizetype retryAt = m_retryAt > 0 ? m_retryAt - decoded : 0;
            m_pos = 0;
            makeRoom(rest.size() - decoded);
            m_buffer.append(rest.data() + decoded, rest.size() - decoded);
            m_retryAt = retryAt;
            return;
        }
        const qsizetype old = makeRoom(0); // the cut value, at the buffer's front
        const qsizetype take
            = std::min(chunk.size() - at, std::max<qsizetype>(m_retryAt - old, 4096));
        makeRoom(take);
        m_buffer.append(chunk.data() + at, take);
        if (m_buffer.size() < m_retryAt)
            return; // all of the chunk was taken (take is what the retry needs at most)
        m_retryAt = 0;
        while (step(m_buffer, false)) { }
        if (hasError())
            return;
        if (m_pos < old) {
            at += take; // still cut (it waits for more), or only whitespace was left
            continue;
        }
        // Past the bytes the buffer had: go on from the same place in the chunk.
        at += m_pos - old;
        m_buffer.resize(0);
        m_pos = 0;
        m_retryAt = 0;
    }
}

void ListStreamDecoder::feed(QIODevice *device)
{
    const qint64 available = device->bytesAvailable();
    if (available <= 0)
        return;
    if (hasError() || m_state == State::Done) {
        feed(device->readAll());
        return;
    }
    const qsizetype old = makeRoom(qsizetype(available));
    m_buffer.resize(old + qsizetype(available));
    const qint64 read = device->read(m_buffer.data() + old, available);
    m_buffer.resize(old + qsizetype(std::max<qint64>(read, 0)));
    if (m_buffer.size() < m_retryAt)
        return;
    m_retryAt = 0;
    while (step(m_buffer, false)) { }
}

bool ListStreamDecoder::finish()
{
    if (hasError())
        return false;
    m_retryAt = 0;
    while (m_state != State::Done && step(m_buffer, true)) { }
    if (hasError())
        return false;
    if (m_state != State::Done) {
        fail(u"malformed list response: the body ended inside the list"_s);
        return false;
    }
    models::jsonscan::Scanner rest(QByteArrayView(m_buffer).sliced(m_pos));
    rest.skipWhitespace();
    if (!rest.atEnd()) {
        fail(u"malformed list response: data after the list"_s);
        return false;
    }
    m_buffer.clear();
    m_pos = 0;
    return true;
}

void ListStreamDecoder::memberValue(QByteArrayView key, QByteArrayView value)
{
    // Small members (kind, apiVersion, metadata) are decoded whole, as decodeListPage does.
    if (key == "kind") {
        m_kind = models::jsonscan::toString(value).value_or(QString());
    } else if (key == "metadata") {
        std::ignore
            = models::jsonscan::forEachMember(value, [&](QByteArrayView name, QByteArrayView v) {
                  if (name == "resourceVersion")
                      m_resourceVersion = models::jsonscan::toString(v).value_or(QString());
                  else if (name == "continue")
                      m_continue = models::jsonscan::toString(v).value_or(QString());
                  return true;
              });
    }
}

struct ListStreamDecoder::Cursor
{
    Cursor(ListStreamDecoder &decoder, QByteArrayView data, bool final)
        : decoder(decoder)
        , data(data)
        , rest(data.sliced(decoder.m_pos))
        , scanner(rest)
        , final(final)
    { }

    // A value that does not end inside the buffer: wait for at least twice as many bytes (so an
    // item cut across many chunks is scanned a bounded number of times); at the end it is an
    // error.
    bool incomplete(const QString &what)
    {
        if (final)
            decoder.fail(u"malformed list response: %1"_s.arg(what));
        else
            decoder.m_retryAt = data.size() + std::max<qsizetype>(rest.size(), 4096);
        return false;
    }

    bool advance()
    {
        decoder.m_pos += scanner.position() - rest.data();
        return true;
    }

    // A number is the one value whose end is not its own: one that ends where the bytes so far
    // end may go on in the next chunk ("41" of "4141").
    bool endsCut(QByteArrayView value) const
    {
        const char first = value.front();
        return !final && scanner.atEnd() && (first == '-' || (first >= '0' && first <= '9'));
    }

    ListStreamDecoder &decoder;
    const QByteArrayView data;
    const QByteArrayView rest;
    models::jsonscan::Scanner scanner;
    const bool final;
};

bool ListStreamDecoder::step(QByteArrayView data, bool final)
{
    Cursor cursor(*this, data, final);
    models::jsonscan::Scanner &scanner = cursor.scanner;
    scanner.skipWhitespace();
    if (scanner.atEnd())
        return final ? cursor.incomplete(u"the body ended inside the list"_s) : false;
    switch (m_state) {
    case State::Start:
        if (!scanner.consume('{')) {
            fail(u"malformed list response: not a JSON object"_s);
            return false;
        }
        m_state = State::FirstKey;
        return cursor.advance();
    case State::FirstKey:
        // An empty object, its '}' perhaps in a later chunk than its '{'.
        if (scanner.consume('}')) {
            m_state = State::Done;
            return cursor.advance();
        }
        m_state = State::Key;
        return true;
    case State::Key:
        return stepKey(cursor);
    case State::AfterKey:
        return stepMemberValue(cursor);
    case State::FirstItem:
        if (scanner.consume(']')) {
            m_state = State::AfterMember;
            return cursor.advance();
        }
        m_state = State::Items;
        return true;
    case State::Items:
        return stepItem(cursor);
    case State::AfterItem:
        if (scanner.consume(','))
            m_state = State::Items;
        else if (scanner.consume(']'))
            m_state = State::AfterMember;
        else {
            fail(u"list response: items is not an array"_s);
            return false;
        }
        return cursor.advance();
    case State::AfterMember:
        if (scanner.consume(','))
            m_state = State::Key;
        else if (scanner.consume('}'))
            m_state = State::Done;
        else {
            fail(u"malformed list response"_s);
            return false;
        }
        return cursor.advance();
    case State::Done:
        return false;
    }
    return false;
}

bool ListStreamDecoder::stepKey(Cursor &cursor)
{
    models::jsonscan::Scanner &scanner = cursor.scanner;
    QByteArrayView key;
    if (!scanner.string(&key)) {
        // Refused within an escape's length of the end (a \\u with its digits still to come):
        // perhaps only cut by the chunk's end.
        if (cursor.rest.data() + cursor.rest.size() - scanner.position() < 6)
            return cursor.incomplete(u"truncated member name"_s);
        fail(u"malformed list response"_s);
        return false;
    }
    if (!scanner.consume(':')) {
        if (scanner.atEnd())
            return cursor.incomplete(u"truncated member"_s);
        fail(u"malformed list response"_s);
        return false;
    }
    m_key = key.sliced(1, key.size() - 2).toByteArray();
    m_state = State::AfterKey;
    return cursor.advance();
}

bool ListStreamDecoder::stepMemberValue(Cursor &cursor)
{
    models::jsonscan::Scanner &scanner = cursor.scanner;
    if (m_key == "items" && scanner.peekIs('[')) {
        scanner.consume('[');
        m_itemsSeen = true;
        m_state = State::FirstItem;
        return cursor.advance();
    }
    QByteArrayView value;
    if (!scanner.value(&value, 1) || cursor.endsCut(value))
        return cursor.incomplete(u"truncated or invalid member value"_s);
    if (m_key == "items" && value != "null") {
        fail(u"list response: items is not an array"_s);
        return false;
    }
    memberValue(m_key, value);
    m_state = State::AfterMember;
    return cursor.advance();
}

bool ListStreamDecoder::stepItem(Cursor &cursor)
{
    QByteArrayView item;
    if (!cursor.scanner.value(&item, 1) || cursor.endsCut(item))
        return cursor.incomplete(u"an item is truncated or invalid"_s);
    ++m_items;
    m_onItem(item);
    m_state = State::AfterItem;
    return cursor.advance();
}

} // namespace reconscope::controller::kube
