#ifndef HERON_MALLOC_COUNTER_H
#define HERON_MALLOC_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) made by every thread of the process since it started, on glibc: the executable
/// that links this target replaces those functions with counting ones that call glibc's own.
/// Elsewhere (macOS, musl) nothing is replaced and the count stays -1.
long long heron_allocation_count(void);

/// With `on` nonzero, every allocation writes its stack to standard error until it is called
/// with 0: to find where the allocations of a call come from.
void heron_trace_allocations(int on);

/// Starts counting the jobs enqueued on Swift's global concurrent executor (a task started or
/// resumed on the cooperative pool), through the runtime's enqueue hook; returns 0, or -1
/// where the hook is not available.
int heron_count_global_jobs(void);

/// The jobs counted since ``heron_count_global_jobs`` was called.
long long heron_global_job_count(void);

#endif
