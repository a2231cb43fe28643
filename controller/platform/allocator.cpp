#include "controller/platform/allocator.h"

// Any C library header first: it defines __GLIBC__ (through <features.h>), which the test below
// needs; without one, the test never held and trimHeap() did nothing.
#include <cstdlib>

#include <QThreadPool>

#include <atomic>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RECONSCOPE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RECONSCOPE_ASAN 1
#endif
#if defined(__GLIBC__) && !defined(RECONSCOPE_ASAN)
#define RECONSCOPE_GLIBC_MALLOC 1
#include <malloc.h>
#endif

namespace reconscope::controller::platform {

bool usesGlibcAllocator()
{
#ifdef RECONSCOPE_GLIBC_MALLOC
    return true;
#else
    return false;
#endif
}

bool canTrimHeap()
{
    return usesGlibcAllocator();
}

void trimHeap()
{
#ifdef RECONSCOPE_GLIBC_MALLOC
    malloc_trim(0);
#endif
}

namespace {

std::atomic<bool> tuned{ false }; // tuneAllocator() was called: the reports below are acted on
std::atomic<bool> trimQueued{ false };

} // namespace

void tuneAllocator()
{
    tuned = true;
#ifdef RECONSCOPE_GLIBC_MALLOC
    // glibc's largest allowed threshold on 64-bit (HEAP_MAX_SIZE / 2).
    constexpr int LargestThreshold = 32 * 1024 * 1024;
    mallopt(M_MMAP_THRESHOLD, LargestThreshold);
#endif
}

void reserveThreadArena()
{
    if (!usesGlibcAllocator())
        return;
    constexpr size_t Chunk = 64 * 1024; // below glibc's mmap threshold: taken from the arena
    constexpr int Chunks = 512;
    std::vector<void *> chunks;
    chunks.reserve(Chunks);
    for (int i = 0; i < Chunks; ++i) {
        void *chunk = std::malloc(Chunk);
        if (!chunk)
            break;
        chunks.push_back(chunk);
    }
    for (void *chunk : chunks)
        std::free(chunk);
}

void noteAllocationRunStep()
{
    thread_local int steps = 0;
    if (tuned && ++steps == 2)
        reserveThreadArena();
}

void noteLargeBuffersFreed()
{
    if (!tuned || !canTrimHeap() || trimQueued.exchange(true))
        return;
    QThreadPool::globalInstance()->start([] {
        trimQueued = false;
        trimHeap();
    });
}

} // namespace reconscope::controller::platform
