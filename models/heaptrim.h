#pragma once

namespace reconscope::models {

// Whether glibc's allocator is the one in use: glibc, and not under AddressSanitizer (whose
// allocator replaces glibc's).
bool usesGlibcAllocator();
// Whether trimHeap() gives anything back here: where glibc's allocator is in use (under ASan,
// glibc's malloc_trim called from a thread corrupts glibc's arena bookkeeping,
// google/sanitizers#1721: "malloc assertion failure in __malloc_arena_thread_freeres" when the
// informer's thread exited).
bool canTrimHeap();
// Hands the heap's free pages back to the system (glibc keeps the pages of freed memory: a large
// first list would leave its buffers behind). Walks the whole heap: call it off the UI thread.
// Does nothing where canTrimHeap() is false.
void trimHeap();
// Blocks up to 32 MB come from the heap and are reused once freed, instead of each block over
// glibc's mmap threshold (128 KB at first, raised only as such blocks are freed) being mapped
// afresh and paid for again in page faults. A large list passes through transient buffers of
// 1-4 MB (Qt's TLS backend sizes a fresh one by what the socket holds, on every read): at 50k
// objects this saves the informer ~20k page faults and ~5 % of its CPU. Call it first in main(),
// before any thread starts. Does nothing where usesGlibcAllocator() is false.
void keepLargeBlocksInHeap();

} // namespace reconscope::models
