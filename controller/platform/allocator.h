#pragma once

namespace reconscope::controller::platform {

// The allocator settings of the process (glibc's malloc), decided here alone. The programs call
// tuneAllocator() first in main(); the client only reports what it does (noteAllocationRunStep(),
// noteLargeBuffersFreed()), and what the allocator makes of that is decided below, in programs
// that called tuneAllocator() (elsewhere, in tests and tools, the reports change nothing).

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
// afresh and paid for again in page faults: a large list passes through transient buffers of
// 1-4 MB (Qt's TLS backend sizes a fresh one by what the socket holds, on every read). Call it
// first in main(), before any thread starts. Does nothing where usesGlibcAllocator() is false.
void tuneAllocator();
// Leaves a few tens of MB of the calling thread's arena writable for its later growth: glibc grows
// a thread's arena a few pages at a time with one mprotect() each, each taking the address-space
// lock that every page fault of the process also needs. Carving the space once and freeing it
// keeps it writable (glibc keeps it so; the freed pages themselves go back to the system at once).
// For a thread about to allocate much more than it has so far. Does nothing where
// usesGlibcAllocator() is false.
void reserveThreadArena();

// A step of a long run of allocations on the calling thread (a list's batch prepared on a pool
// thread): from a thread's second step on, its arena is reserved once (reserveThreadArena()).
void noteAllocationRunStep();
// Large buffers were just freed (a first list's response and items, a table's rows): their pages
// go back to the system soon, on a pool thread (a trim walks the whole heap), where canTrimHeap().
// Reports that come while a trim waits share it.
void noteLargeBuffersFreed();

} // namespace reconscope::controller::platform
