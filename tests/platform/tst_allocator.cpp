// controller/platform/allocator: on glibc (not under AddressSanitizer) trimHeap() gives the pages
// of freed memory back to the system, also those in the middle of the heap that a live block above
// keeps from being released by free() itself; tuneAllocator() keeps large blocks in the heap;
// reserveThreadArena() leaves the thread's allocations working; the client's reports
// (noteLargeBuffersFreed()) are acted on only in a program that called tuneAllocator().

#include "controller/platform/allocator.h"

#include <QFile>
#include <QTest>
#include <QThreadPool>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace reconscope::controller::platform;

namespace {

qint64 residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLongLong() * 4096 : -1;
}

// 64 MB in blocks of 2 KB (below the mmap threshold, so on the heap) freed, and one block above
// them that stays (returned): the freed blocks' pages stay with the process until a trim.
std::unique_ptr<char[]> leaveFreedPagesBelow()
{
    constexpr int Blocks = 32 * 1024;
    std::vector<std::unique_ptr<char[]>> blocks;
    blocks.reserve(Blocks);
    for (int i = 0; i < Blocks; ++i) {
        blocks.emplace_back(new char[2048]);
        std::fill_n(blocks.back().get(), 2048, char(i));
    }
    std::unique_ptr<char[]> top(new char[2048]);
    std::fill_n(top.get(), 2048, 'x');
    return top;
}

QString residentChange(qint64 before, qint64 after)
{
    return QStringLiteral("resident %1 MB -> %2 MB")
        .arg(double(before) / 1e6)
        .arg(double(after) / 1e6);
}

} // namespace

class tst_Allocator : public QObject
{
    Q_OBJECT

private slots:
    void trimsWhereGlibcAllocates();
    void reportsChangeNothingUntilTuned(); // before any test calls tuneAllocator()
    void largeBlocksComeFromTheHeapOnceAsked();
    void reservedArenaStillAllocates();
    void reportsAreActedOnOnceTuned();
};

void tst_Allocator::trimsWhereGlibcAllocates()
{
    if (!usesGlibcAllocator()) {
        QVERIFY(!canTrimHeap());
        trimHeap(); // does nothing, and does not crash
        return;
    }
    QVERIFY(canTrimHeap());
    const auto top = leaveFreedPagesBelow();
    const qint64 before = residentBytes();
    QVERIFY(before > 0);
    trimHeap();
    const qint64 after = residentBytes();
    QVERIFY2(before - after > 32 * 1024 * 1024, qPrintable(residentChange(before, after)));
    QCOMPARE(top[0], 'x');
}

void tst_Allocator::reportsChangeNothingUntilTuned()
{
    const auto top = leaveFreedPagesBelow();
    const qint64 before = residentBytes();
    noteLargeBuffersFreed(); // a test, not a program: nothing is trimmed
    QThreadPool::globalInstance()->waitForDone();
    const qint64 after = residentBytes();
    QVERIFY2(before - after < 16 * 1024 * 1024, qPrintable(residentChange(before, after)));
    QCOMPARE(top[0], 'x');
}

void tst_Allocator::largeBlocksComeFromTheHeapOnceAsked()
{
    if (!usesGlibcAllocator()) {
        tuneAllocator(); // does nothing, and does not crash
        QSKIP("glibc's allocator is not the one in use");
    }
#if defined(__GLIBC__)
    // mallinfo2().hblks: how many blocks are mapped on their own.
    const auto allocate = [](std::size_t bytes) {
        std::unique_ptr<char[]> block(new char[bytes]);
        std::fill_n(block.get(), bytes, 'x');
        return block;
    };
    {
        // By default a 16 MB block is mapped on its own; freeing it raises glibc's threshold to
        // 16 MB.
        const std::size_t before = mallinfo2().hblks;
        const auto block = allocate(16 * 1024 * 1024);
        QCOMPARE(mallinfo2().hblks, before + 1);
        QCOMPARE(block[123], 'x');
    }
    tuneAllocator();
    // Above that raised threshold, 24 MB now come from the heap.
    const std::size_t before = mallinfo2().hblks;
    const auto block = allocate(24 * 1024 * 1024);
    QCOMPARE(mallinfo2().hblks, before);
    QCOMPARE(block[456], 'x');
#endif
}

void tst_Allocator::reservedArenaStillAllocates()
{
    // On a thread of its own (its own arena), as the reflector's pool threads call it.
    bool allocated = false;
    std::thread thread([&allocated] {
        reserveThreadArena();
        reserveThreadArena(); // again: harmless
        std::vector<std::unique_ptr<char[]>> blocks;
        for (int i = 0; i < 1024; ++i) {
            blocks.emplace_back(new char[16 * 1024]);
            std::fill_n(blocks.back().get(), 16 * 1024, char(i));
        }
        allocated = blocks[1023][0] == char(1023 & 0xff);
    });
    thread.join();
    QVERIFY(allocated);
}

void tst_Allocator::reportsAreActedOnOnceTuned()
{
    tuneAllocator();
    if (!usesGlibcAllocator()) {
        noteLargeBuffersFreed(); // does nothing, and does not crash
        QSKIP("glibc's allocator is not the one in use");
    }
    trimHeap();
    const auto top = leaveFreedPagesBelow();
    const qint64 before = residentBytes();
    noteLargeBuffersFreed();
    noteLargeBuffersFreed(); // shares the trim already queued
    QThreadPool::globalInstance()->waitForDone();
    const qint64 after = residentBytes();
    QVERIFY2(before - after > 32 * 1024 * 1024, qPrintable(residentChange(before, after)));
    QCOMPARE(top[0], 'x');
}

QTEST_GUILESS_MAIN(tst_Allocator)
#include "tst_allocator.moc"
