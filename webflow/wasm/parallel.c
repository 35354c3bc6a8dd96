/* parallel.c: the native library's own worker threads, for kernels that share one call's work out.
 *
 *   void wf_run_parallel(task, job, threads)   (webflow_kernels.h) task(job, t) for t = 0 .. threads-1 at
 *       once: t = 0 on the calling thread, the others on workers; returns when every one has returned
 *   wf_size wf_parallel_workers(void)           workers started so far (for tests)
 *
 * Why in C: a Python thread pool (backends/parallel.py) hands a kernel to its worker through a queue and the
 * GIL. On this 2-vCPU VM that worker starts 40-70 us (median; 200 us at the 90th percentile) after the call:
 * conv2's forward at batch 50, min of 100 interleaved calls, took 5.41 ms on one thread, 2.90 split through
 * Python's pool and 2.76 through these workers. Here the caller never
 * lets go of the kernel: it publishes the job in the worker's slot and runs its own share at once, and a
 * worker that finished a job less than SPIN_NANOSECONDS ago is still polling its slot, so it starts within a
 * microsecond. It polls with sched_yield, so a thread that wants the core meanwhile (Python's pool, OpenBLAS)
 * gets it: polling with the pause instruction instead made the steps that mix both kinds of thread no
 * faster. Longer idle workers sleep on a condition variable.
 * Measured, the Deep MNIST CNN's training step at batch 50 on 2 threads, processes alternating with the
 * Python pool's version: median step 27.2 -> 25.3 ms and 26.6 -> 25.5 (the best steps the same within the
 * noise); batch 128, median 55.4 -> 49.3.
 *
 * A task accepts any number of threads (webflow_kernels.h), so thread 0 alone finishes it if no worker comes.
 * One job at a time: a second caller (another Python thread) that finds the pool busy runs its whole job on
 * its own thread.
 * A forked child starts with no workers (pthread_atfork): the parent's threads do not exist there.
 * WebAssembly (Pyodide) has no threads here, nor a Windows build pthreads: the caller runs the whole job.
 */
#include "webflow_kernels.h"

#if defined(__wasm__) || defined(_WIN32)

WF_EXPORT wf_size wf_parallel_workers(void) { return 0; }  /* wf_run_parallel: webflow_kernels.h */

#else

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define MAX_WORKERS 63
#define SPIN_NANOSECONDS 200000 /* ~0.2 ms: longer than the gaps between one training step's kernels */

/* A worker's slot: the caller writes task and job, then sets state POSTED; the worker that takes it sets
 * RUNNING, and IDLE when the task returns. A caller that finished every unit itself takes back a job no
 * worker has started (POSTED -> IDLE), so it never waits for a sleeping worker to wake. Each slot has its
 * own cache line, so polling one does not slow the others. */
enum { IDLE, POSTED, RUNNING };
typedef struct {
    _Alignas(64) wf_task task;
    void *job;
    int state;
} slot;

static struct {
    pthread_mutex_t lock;  /* guards started; with `wake`, the sleep of idle workers */
    pthread_cond_t wake;
    pthread_mutex_t busy;  /* held by the caller whose job the workers run */
    wf_size started;
    slot slots[MAX_WORKERS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, 0, {{0}}};

static long long nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int posted(slot *s) { return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == POSTED; }

/* Returns once a job is posted to the slot: polled for SPIN_NANOSECONDS, then slept for. */
static void wait_for_job(slot *mine) {
    long long deadline = nanoseconds() + SPIN_NANOSECONDS;
    for (int polls = 1; !posted(mine); ++polls) {
        sched_yield();  /* a runnable thread (Python's, OpenBLAS's) gets this core at once */
        if (polls % 64 == 0 && nanoseconds() > deadline) {
            pthread_mutex_lock(&pool.lock);
            while (!posted(mine)) pthread_cond_wait(&pool.wake, &pool.lock);
            pthread_mutex_unlock(&pool.lock);
        }
    }
}

static void *worker(void *argument) {
    slot *mine = argument;
    for (;;) {
        wait_for_job(mine);
        int expected = POSTED;  /* the caller may have taken the job back meanwhile */
        if (!__atomic_compare_exchange_n(&mine->state, &expected, RUNNING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            continue;
        mine->task(mine->job, mine - pool.slots + 1);
        __atomic_store_n(&mine->state, IDLE, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* At least `workers` workers running (fewer if the system refuses threads); returns how many there are. */
static wf_size start_workers(wf_size workers) {
    pthread_mutex_lock(&pool.lock);
    while (pool.started < WF_MIN(workers, MAX_WORKERS)) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&thread, &attributes, worker, &pool.slots[pool.started]);
        pthread_attr_destroy(&attributes);
        if (failed) break;
        ++pool.started;
    }
    wf_size started = pool.started;
    pthread_mutex_unlock(&pool.lock);
    return started;
}

static void forget_workers(void) {  /* in a forked child: the parent's workers are not there */
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t fresh = PTHREAD_COND_INITIALIZER;
    pool.lock = unlocked;
    pool.busy = unlocked;
    pool.wake = fresh;
    pool.started = 0;
    for (int i = 0; i < MAX_WORKERS; ++i) pool.slots[i].state = IDLE;
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, forget_workers); }

/* Waits until the slot's worker has finished with the caller's job (or takes it back unstarted). */
static void collect(slot *s) {
    int expected = POSTED;
    if (__atomic_compare_exchange_n(&s->state, &expected, IDLE, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    for (int polls = 1; __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != IDLE; ++polls) {
        if (polls < 4096) cpu_relax();
        else sched_yield();  /* more threads than cores: let the worker run */
    }
}

void wf_run_parallel(wf_task task, void *job, wf_size threads) {
    if (threads <= 1 || pthread_mutex_trylock(&pool.busy) != 0) {
        task(job, 0);  /* one thread, or the pool is running another caller's job */
        return;
    }
    pthread_once(&fork_handler_once, install_fork_handler);
    wf_size helpers = WF_MIN(threads - 1, start_workers(threads - 1));
    for (wf_size i = 0; i < helpers; ++i) {
        pool.slots[i].task = task;
        pool.slots[i].job = job;
        __atomic_store_n(&pool.slots[i].state, POSTED, __ATOMIC_RELEASE);
    }
    /* Wakes the workers that stopped polling. A worker checks its slot under the lock before it waits, and
     * this broadcast takes the lock after posting, so none sleeps through its job. */
    pthread_mutex_lock(&pool.lock);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    task(job, 0);
    for (wf_size i = 0; i < helpers; ++i) collect(&pool.slots[i]);
    pthread_mutex_unlock(&pool.busy);
}

WF_EXPORT wf_size wf_parallel_workers(void) {
    pthread_mutex_lock(&pool.lock);
    wf_size started = pool.started;
    pthread_mutex_unlock(&pool.lock);
    return started;
}

#endif
