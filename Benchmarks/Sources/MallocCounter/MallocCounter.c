// Counts the process's heap allocations, as swift-nio's allocation-counter tests do, without a
// dependency: an executable's own `malloc` wins over glibc's for every library of the process
// (ELF symbol interposition), and glibc exports its implementations as `__libc_*`, so the
// counting functions need neither dlsym nor a second allocator. Frees are not counted.
#include "MallocCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

#include <execinfo.h>
#include <unistd.h>

static _Atomic long long allocations = 0;
static _Atomic int tracing = 0;
static _Thread_local int inside_trace = 0;

/// With tracing on, each allocation writes its stack to standard error (to find where a
/// call's allocations come from); backtrace() may allocate itself, hence the guard.
static void trace_one(void) {
    if (inside_trace) return;
    inside_trace = 1;
    void *frames[24];
    int count = backtrace(frames, 24);
    write(2, "--- allocation\n", 15);
    backtrace_symbols_fd(frames + 2, count - 2, 2);
    inside_trace = 0;
}

static inline void count_one(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    if (atomic_load_explicit(&tracing, memory_order_relaxed)) trace_one();
}

void heron_trace_allocations(int on) { atomic_store(&tracing, on); }

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

long long heron_allocation_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

// The Swift runtime's hook for enqueueing a job on the global executor (swift_task_enqueueGlobal):
// it is given the job and the runtime's own function, both in Swift's calling convention.
typedef __attribute__((swiftcall)) void (*heron_enqueue_original)(void *job);
typedef __attribute__((swiftcall)) void (*heron_enqueue_hook)(void *job, heron_enqueue_original original);
extern heron_enqueue_hook swift_task_enqueueGlobal_hook;

static _Atomic long long global_jobs = 0;

static __attribute__((swiftcall)) void count_job(void *job, heron_enqueue_original original) {
    atomic_fetch_add_explicit(&global_jobs, 1, memory_order_relaxed);
    original(job);
}

int heron_count_global_jobs(void) {
    swift_task_enqueueGlobal_hook = count_job;
    return 0;
}

long long heron_global_job_count(void) { return atomic_load_explicit(&global_jobs, memory_order_relaxed); }
#else
void heron_trace_allocations(int on) { (void)on; }
long long heron_allocation_count(void) { return -1; }
int heron_count_global_jobs(void) { return -1; }
long long heron_global_job_count(void) { return -1; }
#endif
