// libFuzzer target: the recording reader (controller/record/recordingreader) and the import of
// kubectl captures (controller/record/kubectlimport).
//
// The first byte chooses what the rest is:
//   0: a whole file, read as it is (the framing: header, block headers, checksums, cut files);
//   1: the decompressed record stream of one block, framed here with a valid header, block header
//      and checksums, so that the fuzzer reaches the record parser and its rules instead of
//      stopping at a checksum;
//   2: the text of a kubectl capture.
// Every input must be answered: a reader that returns an error or a cut-short end is fine, a
// crash, a sanitizer report or an endless loop is a finding.

#include "controller/record/kubectlimport.h"
#include "controller/record/recordingformat.h"
#include "controller/record/recordingreader.h"

#include <QBuffer>
#include <QtEndian>

#include <zlib.h>
#include <zstd.h>

#include <cstdint>

using namespace reconscope::controller::record;

namespace {

void appendLe(QByteArray &out, quint64 value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.append(char((value >> (8 * i)) & 0xff));
}

quint32 crc(QByteArrayView bytes)
{
    return quint32(crc32(
        crc32(0, nullptr, 0), reinterpret_cast<const Bytef *>(bytes.data()), uInt(bytes.size())));
}

// A file of one block holding `records` (the decompressed stream), framed as the format says.
QByteArray framed(QByteArrayView records)
{
    QByteArray file(FileMagic, sizeof FileMagic);
    appendLe(file, FormatVersion, 2);
    appendLe(file, 0, 2); // flags
    appendLe(file, 1764775465000000ull, 8); // start time
    const QByteArray metadata = R"({"producer":"fuzz","source":"record"})";
    appendLe(file, quint64(metadata.size()), 4);
    file += metadata;
    appendLe(file, crc(file), 4);
    if (records.isEmpty())
        return file;
    QByteArray payload(qsizetype(ZSTD_compressBound(std::size_t(records.size()))),
                       Qt::Uninitialized);
    const std::size_t written = ZSTD_compress(payload.data(),
                                              std::size_t(payload.size()),
                                              records.data(),
                                              std::size_t(records.size()),
                                              1);
    if (ZSTD_isError(written))
        return file;
    payload.truncate(qsizetype(written));
    QByteArray block(BlockTag, sizeof BlockTag);
    appendLe(block, quint64(payload.size()), 4);
    appendLe(block, quint64(records.size()), 4);
    appendLe(block, crc(payload), 4);
    appendLe(block, crc(block), 4);
    return file + block + payload;
}

void readAll(const QByteArray &file)
{
    QBuffer buffer;
    buffer.setData(file);
    buffer.open(QIODevice::ReadOnly);
    auto reader = RecordingReader::open(&buffer);
    if (!reader)
        return;
    // Each call consumes a record or ends the file; the bound only stops a reader that would not.
    for (int i = 0; i < 1'000'000; ++i) {
        const auto record = reader.value()->next();
        if (!record || !record.value())
            return;
    }
    __builtin_trap(); // more records than the input has bytes: the reader loops
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    const QByteArrayView rest(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    switch (data[0] % 3) {
    case 0:
        readAll(rest.toByteArray());
        break;
    case 1:
        readAll(framed(rest));
        break;
    default:
        (void)importKubectlCapture(rest, KubectlImportOptions{});
        break;
    }
    return 0;
}
