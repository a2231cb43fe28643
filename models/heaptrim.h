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

} // namespace reconscope::models
