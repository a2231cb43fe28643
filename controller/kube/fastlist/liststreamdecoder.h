#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

class QIODevice;

#include <functional>

namespace reconscope::controller::kube {

// Decodes a list response (`{"items":[...],"metadata":{...},...}`) as its body streams in: each
// item is handed to the callback as soon as its last byte has arrived, and consumed bytes are
// dropped, so a 177 MB list is never held whole. Chunks may be cut anywhere. The same rules as
// decodeListPage: a JSON object, `items` an array or null, every item a valid JSON value.
class ListStreamDecoder
{
public:
    using ItemCallback = std::function<void(QByteArrayView item)>;

    explicit ListStreamDecoder(ItemCallback onItem);

    void feed(QByteArrayView chunk);
    // Reads what `device` has into the decoder's buffer (no intermediate copy) and decodes it.
    void feed(QIODevice *device);
    // The body is complete: false (and errorString()) when it was not a whole, valid list.
    bool finish();

    bool hasError() const { return !m_error.isEmpty(); }
    QString errorString() const { return m_error; }
    QString resourceVersion() const { return m_resourceVersion; }
    QString continueToken() const { return m_continue; }
    QString kind() const { return m_kind; }
    qsizetype itemCount() const { return m_items; }
    // Bytes received but not decoded yet (at most about one item, plus what the last chunk
    // brought).
    qsizetype pendingBytes() const { return m_buffer.size() - m_pos; }
    // Where the bytes received are kept: it stays put from chunk to chunk as long as none is
    // bigger than the ones before (its pages are reused rather than taken fresh for each chunk).
    const char *bufferAddress() const { return m_buffer.constData(); }

private:
    enum class State {
        Start,
        FirstKey,
        Key,
        AfterKey,
        FirstItem,
        Items,
        AfterItem,
        AfterMember,
        Done
    };
    // Decodes what it can of data[m_pos...] (the buffer, or a chunk decoded where it lies);
    // false when it needs more bytes (or has failed).
    bool step(QByteArrayView data, bool final);
    struct Cursor; // one step's place in the bytes
    // The states that read a member name, a member's value, or an item.
    bool stepKey(Cursor &cursor);
    bool stepMemberValue(Cursor &cursor);
    bool stepItem(Cursor &cursor);
    void fail(const QString &message);
    // Makes room for `incoming` more bytes after what is left to decode, which it moves to the
    // buffer's front; returns where the new bytes go.
    qsizetype makeRoom(qsizetype incoming);
    void memberValue(QByteArrayView key, QByteArrayView value);

    ItemCallback m_onItem;
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    qsizetype m_retryAt = 0; // a value did not end inside the buffer: wait for this many bytes
    State m_state = State::Start;
    QByteArray m_key;
    bool m_itemsSeen = false;
    qsizetype m_items = 0;
    QString m_error;
    QString m_resourceVersion;
    QString m_continue;
    QString m_kind;
};

} // namespace reconscope::controller::kube
