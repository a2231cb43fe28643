#pragma once

#include "controller/apimachinery/status.h"
#include "controller/kube/objectmeta.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QMetaType>
#include <QString>

namespace reconscope::controller::kube {

// One event of a watch stream. The object stays raw JSON bytes: consumers project what they need
// (ObjectMeta::peek, models::ObjectSummary) instead of the decoder building a tree per event.
struct WatchEvent
{
    enum class Type { Added, Modified, Deleted, Bookmark, Error };

    Type type = Type::Added;
    QByteArray object;
    // The object's metadata, read while the event was decoded: what ObjectMeta::peek(object)
    // gives (readers may take it instead of scanning the object again).
    ObjectMeta meta;
    apimachinery::ApiError
        status; // for Type::Error: the Status the server sent (410 Expired: status.isExpired())

    static QString typeName(Type type);
};

// Splits a watch response body into events. The stream is newline-delimited compact JSON
// (kube-api.md section 4); chunks may be cut anywhere, including inside a UTF-8 sequence.
// A malformed line stops decoding: hasError() is set and the caller restarts the stream.
class WatchDecoder
{
public:
    // Decodes every complete line of `chunk` (with what was pending) and appends its events.
    void feed(QByteArrayView chunk);
    // The stream ended: a non-blank unterminated rest is decoded as a last line.
    void finish();
    QList<WatchEvent> takeEvents();
    bool hasError() const { return !m_error.isEmpty(); }
    QString errorString() const { return m_error; }
    qsizetype pendingBytes() const { return m_pending.size(); }
    void reset();

    // Decodes one event line (without its newline); false and *error on a malformed line.
    static bool decodeLine(QByteArrayView line, WatchEvent *event, QString *error);

private:
    void decode(QByteArrayView line);

    QByteArray m_pending;
    QList<WatchEvent> m_events;
    QString m_error;
};

// One page of a list response, items kept as raw bytes.
struct ListPage
{
    QString resourceVersion;
    QString continueToken;
    QString kind;
    QList<QByteArray> items;
};

// Decodes a list body without building a tree per item; false and *error when malformed.
bool decodeListPage(QByteArrayView body, ListPage *page, QString *error);
// The same, the items sharing body's buffer instead of copies of their bytes: a list of 50k
// objects is held once, not twice, while it is decoded (the buffer is freed when the last item
// referring to it is).
bool decodeListPageShared(const QByteArray &body, ListPage *page, QString *error);

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(reconscope::controller::kube::WatchEvent)
