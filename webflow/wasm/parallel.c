/* parallel.c: the native library's own worker threads, for kernels that share one call's work out.
 *
 *   void wf_run_parallel(task, job, threads)   (webflow_kernels.h) task(job, t) for t = 0 .. threads-1 at
 *       once: t = 0 on the calling thread, the others on workers; returns when every one has returned
 *   wf_size wf_parallel_workers(void)           workers started so far (for tests)
 *   void wf_parallel_counts(wf_size counts[3])  since the start: jobs posted to workers, jobs taken back
 *       unstarted, "crowded" decisions (benchmarks and tests: does the second thread take part?)
 *
 * Why in C: a Python thread pool (backends/parallel.py) hands a kernel to its worker through a queue and the
 * GIL. On this 2-vCPU VM that worker starts 40-70 us (median; 200 us at the 90th percentile) after the call:
 * conv2's forward at batch 50, min of 100 interleaved calls, took 5.41 ms on one thread, 2.90 split through
 * Python's pool and 2.76 through these workers. Here the caller never
 * lets go of the kernel: it publishes the job in the worker's slot and runs its own share at once, and a
 * worker that finished a job less than SPIN_NANOSECONDS ago is still polling its slot, so it starts within a
 * microsecond. It polls with sched_yield, so a thread that wants the core meanwhile (Python's pool, OpenBLAS)
 * gets it: polling with the pause instruction instead made the steps that mix both kinds of thread no
 * faster. Longer idle workers sleep (a futex on Linux, else a condition variable); woken, they poll again.
 * Linux: a sleeping worker is kept off the caller's CPU for its wake (keep_off_caller), since a kernel that packs
 * wakes onto running CPUs would otherwise queue it behind its own caller.
 * On a crowded machine (more runnable threads than cores: a classroom's, or other jobs) nothing polls for
 * long: a worker that polled and still missed a job stops polling until one reaches it, and a caller
 * waiting for a worker's last unit sleeps after COLLECT_NANOSECONDS. Why: a polling thread spends its
 * share of the CPU, so the scheduler runs it after every busy neighbour's slice; a worker preempted
 * holding a unit then kept its caller waiting milliseconds, on every call (wait_for_job, collect).
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
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* syscall() (the futex), sched_getcpu, CPU affinity */
#endif
#include "webflow_kernels.h"

#if defined(__wasm__) || defined(_WIN32)

WF_EXPORT wf_size wf_parallel_workers(void) { return 0; }  /* wf_run_parallel: webflow_kernels.h */
WF_EXPORT void wf_parallel_counts(wf_size *counts) { counts[0] = counts[1] = counts[2] = 0; }

#else

#include <pthread.h>
#include <sched.h>
#include <time.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define MAX_WORKERS 63
#define SPIN_NANOSECONDS 200000   /* ~0.2 ms: longer than the gaps between one training step's kernels */
#define COLLECT_NANOSECONDS 30000 /* a caller polls this long for a worker's last unit (crowded), then sleeps */
#define LATE_NANOSECONDS 2000000   /* a worker at least this late with its last unit was preempted (collect) */
#define ALONE_NANOSECONDS 20000000 /* after a sign of a crowded machine, callers run their jobs alone this long */

/* A worker's slot: the caller writes task and job, then sets state POSTED; the worker that takes it sets
 * RUNNING, and IDLE when the task returns. A caller that finished every unit itself takes back a job no
 * worker has started (POSTED -> IDLE), so it never waits for a sleeping worker to wake. asleep[WORKER] is set
 * by the worker about to sleep until a job is posted, asleep[CALLER] by the caller about to sleep until the
 * worker's end: whoever changes the state then wakes them (each thread clears only its own flag). Each slot
 * has its own cache line, so polling one does not slow the others. */
enum { IDLE, POSTED, RUNNING };
enum { WORKER, CALLER };
enum { POSTS, TAKEN_BACK, CROWDED, COUNTS };  /* the counters of wf_parallel_counts() */
typedef struct {
    _Alignas(64) wf_task task;
    void *job;
    int state;
    int asleep[2];
    int kept_off; /* keep_off_caller() narrowed the worker's CPUs (the caller's field, like task and job) */
} slot;

static struct {
    pthread_mutex_t lock;  /* guards started; without futexes, also the sleeps below */
    pthread_cond_t wake;
    pthread_mutex_t busy;  /* held by the caller whose job the workers run */
    wf_size started;
    int crowded;           /* a polling worker missed the last job: workers do not poll, they sleep */
    long long alone_until; /* until then (nanoseconds()), wf_run_parallel runs each job on its caller alone */
    wf_size counts[COUNTS]; /* wf_parallel_counts(): jobs posted, taken back unstarted, crowded decisions */
    pthread_t threads[MAX_WORKERS];
    slot slots[MAX_WORKERS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, {0}, {0}, {{0}}};

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

static void count(int which, wf_size amount) { __atomic_fetch_add(&pool.counts[which], amount, __ATOMIC_RELAXED); }

static int load_state(slot *s) { return __atomic_load_n(&s->state, __ATOMIC_SEQ_CST); }

/* Sleeps while s->state == value; set_state() ends the sleep. Linux: a futex on the state itself (no
 * lock on either side); elsewhere the pool's condition variable. `once`: returns after the first wake even
 * if the state is `value` again (a worker woken for a job its caller has since taken back: see wait_for_job). */
static void sleep_while(slot *s, int who, int value, int once) {
    __atomic_store_n(&s->asleep[who], 1, __ATOMIC_SEQ_CST);  /* before the check: a change after it wakes us */
#if defined(__linux__)
    while (load_state(s) == value) {
        syscall(SYS_futex, &s->state, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
        if (once) break;
    }
#else
    pthread_mutex_lock(&pool.lock);
    while (load_state(s) == value) {
        pthread_cond_wait(&pool.wake, &pool.lock);
        if (once) break;
    }
    pthread_mutex_unlock(&pool.lock);
#endif
    __atomic_store_n(&s->asleep[who], 0, __ATOMIC_RELAXED);
}

/* Sets the slot's state and wakes the threads sleeping on it (a syscall only when one said it sleeps). */
static void set_state(slot *s, int value) {
    __atomic_store_n(&s->state, value, __ATOMIC_SEQ_CST);
    int worker_asleep = __atomic_load_n(&s->asleep[WORKER], __ATOMIC_SEQ_CST);
    if (!worker_asleep && !__atomic_load_n(&s->asleep[CALLER], __ATOMIC_SEQ_CST)) return;
#if defined(__linux__)
    syscall(SYS_futex, &s->state, FUTEX_WAKE_PRIVATE, 2, NULL, NULL, 0);
#else
    pthread_mutex_lock(&pool.lock);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
#endif
}

/* Returns once a job is posted to the slot. Why it polls only on a quiet machine: a thread that polls
 * (sched_yield or pause) uses up its share of the CPU, and on a crowded machine (more runnable threads than
 * cores) the scheduler then runs it last, after every busy neighbour's time slice: the worker started a
 * job, was preempted holding a unit, and the caller waited milliseconds for it. A thread that sleeps keeps
 * its share, and the scheduler runs it as soon as it is woken.
 * A worker woken from its sleep polls again (a new SPIN_NANOSECONDS), even when its caller took that job back
 * before it ran: a job after an idle spell is mostly the first of a burst (an eager op's block of calls, a
 * training step's kernels), and a worker that went back to sleep at once needed a new wake for every later
 * job of the burst, each one late again (benchmarks/FIGURES.md, "The pool after an idle spell"). */
static void wait_for_job(slot *mine) {
    long long deadline = nanoseconds() + SPIN_NANOSECONDS;
    for (int polls = 1; load_state(mine) != POSTED; ++polls) {
        if (__atomic_load_n(&pool.crowded, __ATOMIC_RELAXED) || (polls % 64 == 0 && nanoseconds() > deadline)) {
            sleep_while(mine, WORKER, IDLE, 1);
            deadline = nanoseconds() + SPIN_NANOSECONDS;
            continue;
        }
        sched_yield();  /* a runnable thread (Python's, OpenBLAS's) gets this core at once */
    }
}

static void *worker(void *argument) {
    slot *mine = argument;
    for (;;) {
        wait_for_job(mine);
        int expected = POSTED;  /* the caller may have taken the job back meanwhile */
        if (!__atomic_compare_exchange_n(&mine->state, &expected, RUNNING, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            continue;
        mine->task(mine->job, mine - pool.slots + 1);
        set_state(mine, IDLE);
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
        pool.threads[pool.started++] = thread;
    }
    wf_size started = pool.started;
    pthread_mutex_unlock(&pool.lock);
    return started;
}

/* Keeps a sleeping worker off the caller's CPU for its wake (Linux: its affinity is every CPU the caller may use
 * but the caller's own; returns 1 if set). Why: this VM's kernel (like others that save idle vCPUs) wakes a
 * sleeping thread on a CPU that is already running rather than on a halted one, so a worker woken after an idle
 * spell was queued behind its own caller, which then ran the whole job alone (a probe: after 1-100 ms idle, most
 * wakes landed on the waker's CPU; kept off it, they started on the other CPU 28-48 us after the post;
 * benchmarks/FIGURES.md, "The pool after an idle spell"). Only for the wake: once the worker has started a job,
 * free_worker lets the scheduler place it anywhere again (a crowded machine's busy CPU is no place to keep it). */
static int keep_off_caller(slot *s) {
#if defined(__linux__)
    int cpu = sched_getcpu();
    cpu_set_t others;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof others, &others) != 0) return 0;
    if (!CPU_ISSET(cpu, &others)) return 0;
    CPU_CLR(cpu, &others);
    return CPU_COUNT(&others) > 0 && pthread_setaffinity_np(pool.threads[s - pool.slots], sizeof others, &others) == 0;
#else
    (void)s;
    return 0;
#endif
}

/* Lets a worker kept off its caller's CPU run on any CPU the caller may use again. */
static void free_worker(slot *s) {
#if defined(__linux__)
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) == 0)
        pthread_setaffinity_np(pool.threads[s - pool.slots], sizeof all, &all);
#endif
    s->kept_off = 0;
}

static void forget_workers(void) {  /* in a forked child: the parent's workers are not there */
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t fresh = PTHREAD_COND_INITIALIZER;
    pool.lock = unlocked;
    pool.busy = unlocked;
    pool.wake = fresh;
    pool.started = 0;
    pool.crowded = 0;
    pool.alone_until = 0;
    for (int i = 0; i < MAX_WORKERS; ++i)
        pool.slots[i].state = pool.slots[i].asleep[WORKER] = pool.slots[i].asleep[CALLER] = pool.slots[i].kept_off = 0;
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, forget_workers); }

/* Waits until the slot's worker has finished with the caller's job, or takes it back unstarted. Returns 1 on a
 * sign of a crowded machine: the worker was polling all the while yet never started a job that took the caller
 * `own` ns (more than COLLECT_NANOSECONDS: it had no core), or it finished later after the caller than both
 * LATE_NANOSECONDS and `own` (a unit longer than the caller's whole share: the worker was not running).
 * A worker's unit is short, so the caller polls for it (as long as a worker polls for a job; a moment when the
 * machine is crowded); past that the worker was most likely preempted mid-unit, and polling on would take CPU
 * time from it (sched_yield does not hand the core to it when the machine is crowded), so the caller sleeps
 * until the worker's set_state wakes it. */
static int collect(slot *s, long long own, int was_asleep) {
    int expected = POSTED;
    if (__atomic_compare_exchange_n(&s->state, &expected, IDLE, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        count(TAKEN_BACK, 1);
        return own > COLLECT_NANOSECONDS && !was_asleep;
    }
    long long waiting = nanoseconds();
    long long deadline = waiting + (__atomic_load_n(&pool.crowded, __ATOMIC_RELAXED) ? COLLECT_NANOSECONDS
                                                                                    : SPIN_NANOSECONDS);
    for (int polls = 1; load_state(s) != IDLE; ++polls) {
        if (polls % 64 == 0 && nanoseconds() > deadline) {
            if (s->kept_off) free_worker(s);
            sleep_while(s, CALLER, RUNNING, 0);
            return nanoseconds() - waiting > WF_MAX(LATE_NANOSECONDS, own);
        }
        cpu_relax();
    }
    if (s->kept_off) free_worker(s);  /* it started: awake, it stays where it runs */
    return 0;
}

/* Why a crowded machine makes callers work alone for a while: a worker that is preempted holding a unit of
 * the job stalls its caller until the scheduler runs it again, after the busy neighbours' time slices; one
 * thread alone is never waited for. ALONE_NANOSECONDS later the workers get another try. */
void wf_run_parallel(wf_task task, void *job, wf_size threads) {
    if (threads <= 1 || pthread_mutex_trylock(&pool.busy) != 0) {
        task(job, 0);  /* one thread, or the pool is running another caller's job */
        return;
    }
    pthread_once(&fork_handler_once, install_fork_handler);
    wf_size helpers = WF_MIN(threads - 1, start_workers(threads - 1));
    long long started = nanoseconds();
    if (started < __atomic_load_n(&pool.alone_until, __ATOMIC_RELAXED)) {
        task(job, 0);  /* a crowded machine */
        pthread_mutex_unlock(&pool.busy);
        return;
    }
    /* Whether each worker slept when the job was posted: one that did may still be waking when the caller has
     * finished alone (a futex wake after an idle spell takes longer than a short job), which is no sign of a
     * crowded machine; read at collect time it would be, since by then the worker is awake. */
    int was_asleep[MAX_WORKERS];
    count(POSTS, helpers);
    for (wf_size i = 0; i < helpers; ++i) {
        was_asleep[i] = __atomic_load_n(&pool.slots[i].asleep[WORKER], __ATOMIC_SEQ_CST);
        if (was_asleep[i] && !pool.slots[i].kept_off) pool.slots[i].kept_off = keep_off_caller(&pool.slots[i]);
        pool.slots[i].task = task;
        pool.slots[i].job = job;
        set_state(&pool.slots[i], POSTED);  /* wakes the worker if it stopped polling */
    }
    task(job, 0);
    long long own = nanoseconds() - started;
    int crowded = 0;
    for (wf_size i = 0; i < helpers; ++i) crowded |= collect(&pool.slots[i], own, was_asleep[i]);
    __atomic_store_n(&pool.crowded, crowded, __ATOMIC_RELAXED);
    if (crowded) {
        count(CROWDED, 1);
        __atomic_store_n(&pool.alone_until, nanoseconds() + ALONE_NANOSECONDS, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&pool.busy);
}

WF_EXPORT void wf_parallel_counts(wf_size *counts) {
    for (int i = 0; i < COUNTS; ++i) counts[i] = __atomic_load_n(&pool.counts[i], __ATOMIC_RELAXED);
}

WF_EXPORT wf_size wf_parallel_workers(void) {
    pthread_mutex_lock(&pool.lock);
    wf_size started = pool.started;
    pthread_mutex_unlock(&pool.lock);
    return started;
}

#endif
