// libFuzzer target: the client's watch decoder and list-page decoder (controller/kube).
//
// The input is a watch response body. It is decoded twice, once whole and once cut into chunks
// whose sizes come from the input itself, and both decodings must agree event for event: a chunk
// boundary (inside a UTF-8 sequence, a string, a CRLF) must never change what is decoded. The same
// bytes are also decoded as a list response, whole and (ListStreamDecoder) streamed in the same
// chunks, each chunk its own copy as the network hands them over: the streamed decoding must be
// the same whatever the cuts. Each event's metadata, read while decoding, must be what
// ObjectMeta::peek reads from its object.

#include "controller/kube/fastlist/liststreamdecoder.h"
#include "controller/kube/watchdecoder.h"

#include <cstdint>
#include <cstdlib>

using namespace reconscope::controller::kube;

namespace {

bool sameEvents(const QList<WatchEvent> &a, const QList<WatchEvent> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (a[i].type != b[i].type || a[i].object != b[i].object)
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const auto chunkSeed = data[0];
    const QByteArrayView body(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));

    WatchDecoder whole;
    whole.feed(body);
    whole.finish();
    const QList<WatchEvent> wholeEvents = whole.takeEvents();

    WatchDecoder chunked;
    qsizetype at = 0;
    qsizetype step = 1 + chunkSeed % 17;
    while (at < body.size()) {
        const qsizetype length = std::min(step, body.size() - at);
        chunked.feed(body.sliced(at, length));
        at += length;
        step = 1 + (step * 7 + chunkSeed) % 23;
    }
    chunked.finish();
    const QList<WatchEvent> chunkedEvents = chunked.takeEvents();

    if (whole.hasError() != chunked.hasError() || !sameEvents(wholeEvents, chunkedEvents))
        std::abort(); // a chunk boundary changed the decoding
    for (const WatchEvent &event : wholeEvents) {
        if (event.type == WatchEvent::Type::Error)
            (void)event.status.message.size();
        ObjectMeta meta;
        if (!ObjectMeta::peek(event.object, &meta) || !(meta == event.meta))
            std::abort(); // the decoder's metadata is not the object's
    }

    // The list decoder fed as views, whole and in chunks.
    struct Streamed
    {
        QList<QByteArray> items;
        bool ok = false;
        QString resourceVersion;
        QString continueToken;
        QString kind;
    };
    const auto stream = [&body, chunkSeed](bool cut) {
        Streamed out;
        ListStreamDecoder decoder([&out](QByteArrayView item) { out.items << item.toByteArray(); });
        qsizetype at = 0;
        qsizetype step = cut ? 1 + chunkSeed % 29 : body.size();
        while (at < body.size()) {
            const qsizetype length = std::min(step, body.size() - at);
            const QByteArray chunk = body.sliced(at, length).toByteArray();
            decoder.feed(chunk);
            at += length;
            step = 1 + (step * 13 + chunkSeed) % 4099;
        }
        out.ok = decoder.finish();
        out.resourceVersion = decoder.resourceVersion();
        out.continueToken = decoder.continueToken();
        out.kind = decoder.kind();
        return out;
    };
    const Streamed streamedWhole = stream(false);
    const Streamed streamedCut = stream(true);
    if (streamedWhole.ok != streamedCut.ok)
        std::abort(); // a chunk boundary changed whether the list is accepted
    if (streamedWhole.ok
        && (streamedWhole.items != streamedCut.items
            || streamedWhole.resourceVersion != streamedCut.resourceVersion
            || streamedWhole.continueToken != streamedCut.continueToken
            || streamedWhole.kind != streamedCut.kind))
        std::abort(); // a chunk boundary changed the items or the list's metadata

    ListPage page;
    QString error;
    if (decodeListPage(body, &page, &error)) {
        for (const QByteArray &item : page.items) {
            if (item.isEmpty())
                std::abort(); // an item is always a whole JSON value
        }
    } else if (error.isEmpty()) {
        std::abort(); // a refused body always says why
    }
    return 0;
}
