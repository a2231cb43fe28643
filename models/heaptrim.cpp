#include "models/heaptrim.h"

// Any C library header first: it defines __GLIBC__ (through <features.h>), which the test below
// needs; without one, the test never held and trimHeap() did nothing.
#include <cstdlib>

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

namespace reconscope::models {

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

void keepLargeBlocksInHeap()
{
#ifdef RECONSCOPE_GLIBC_MALLOC
    // glibc's largest allowed threshold on 64-bit (HEAP_MAX_SIZE / 2).
    constexpr int LargestThreshold = 32 * 1024 * 1024;
    mallopt(M_MMAP_THRESHOLD, LargestThreshold);
#endif
}

} // namespace reconscope::models
