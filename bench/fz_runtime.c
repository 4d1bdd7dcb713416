/* fz_runtime.c: input decoding, the object pool and (with -DFZ_REPLAY) the replay main of
 * the benchmark's libFuzzer harnesses. See fz_runtime.h. */
#define _GNU_SOURCE 1
#include "fz_runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

jmp_buf fz_end_jump;
volatile int fz_end_armed;

/* how the inputs ended, by FZ_END_*; written to $FZ_STATS at exit */
static unsigned long fz_endings[FZ_ENDINGS];
static unsigned long fz_inputs;
static int fz_last_ending = -1;
static volatile unsigned long fz_sequence; /* advances with every input */

static const uint8_t *fz_data;
static size_t fz_size;
static size_t fz_pos;

/* Objects live in one mapping with an inaccessible page on either side, so a unit that
 * runs off an object hits other objects of the same input or a guard page (a crash that
 * libFuzzer records), never the fuzzer's own memory. */
#define FZ_POOL_SIZE (4u << 20)
#define FZ_GAP 16u /* zero bytes after every object: strings end, small overreads read 0 */
#define FZ_MAX_REGIONS 4096

static unsigned char *fz_pool;
static size_t fz_pool_used;

struct fz_region {
    unsigned char *base;
    size_t size;
};
static struct fz_region fz_regions[FZ_MAX_REGIONS];
static size_t fz_region_count;

static void fz_pool_init(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, FZ_POOL_SIZE + 2 * page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        abort();
    mprotect(m, page, PROT_NONE);
    mprotect(m + page + FZ_POOL_SIZE, page, PROT_NONE);
    fz_pool = m + page;
}

static void fz_signal_end(int sig)
{
    if (!fz_end_armed) { /* not in the unit: nothing to return to */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    fz_end(FZ_END_CRASH);
}

/* A watchdog ticking every second: an input still running at the second tick hangs. */
static void fz_tick(int sig)
{
    static unsigned long seen = (unsigned long)-1;
    static int ticks;
    (void)sig;
    if (!fz_end_armed || fz_sequence != seen) {
        seen = fz_sequence;
        ticks = 0;
        return;
    }
    if (++ticks >= 2) {
        ticks = 0;
        fz_end(FZ_END_HANG);
    }
}

static void fz_write_stats(void)
{
    const char *path = getenv("FZ_STATS");
    FILE *f;
    if (!path || !*path || !(f = fopen(path, "a")))
        return;
    fprintf(f, "inputs %lu returned %lu exit %lu abort %lu assert %lu annotation %lu "
               "assume %lu crash %lu hang %lu\n", fz_inputs, fz_endings[0], fz_endings[1],
            fz_endings[2], fz_endings[3], fz_endings[4], fz_endings[5], fz_endings[6],
            fz_endings[7]);
    fclose(f);
}

static void fz_install(void)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    static char altstack[1 << 16];
    stack_t ss;
    struct sigaction sa;
    struct itimerval tick;
    size_t i;
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = fz_signal_end;
    sa.sa_flags = SA_NODEFER | SA_ONSTACK;
    for (i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
    sa.sa_handler = fz_tick;
    sa.sa_flags = SA_NODEFER | SA_ONSTACK | SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    tick.it_interval.tv_sec = 1;
    tick.it_interval.tv_usec = 0;
    tick.it_value = tick.it_interval;
    setitimer(ITIMER_REAL, &tick, NULL);
    atexit(fz_write_stats);
}

void fz_ended(int how)
{
    fz_endings[how]++;
    fz_last_ending = how;
}

void fz_begin(const uint8_t *data, size_t size)
{
    if (!fz_pool) {
        fz_pool_init();
        fz_install();
    }
    fz_last_ending = -1;
    fz_inputs++;
    fz_sequence++;
    fz_data = data;
    fz_size = size;
    fz_pos = 0;
    fz_pool_used = 0;
    fz_region_count = 0;
    fz_end_armed = 0;
}

void fz_take(void *dst, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    size_t have = fz_pos < fz_size ? fz_size - fz_pos : 0;
    size_t k = n < have ? n : have;
    if (k)
        memcpy(d, fz_data + fz_pos, k);
    if (k < n)
        memset(d + k, 0, n - k);
    fz_pos += k;
}

unsigned fz_u8(void)
{
    return fz_pos < fz_size ? fz_data[fz_pos++] : 0u;
}

static unsigned char *fz_alloc(size_t bytes)
{
    unsigned char *p;
    size_t start = (fz_pool_used + 15u) & ~(size_t)15u;
    if (bytes > FZ_POOL_SIZE || start + bytes + FZ_GAP > FZ_POOL_SIZE ||
        fz_region_count == FZ_MAX_REGIONS)
        return NULL;
    p = fz_pool + start;
    memset(p, 0, bytes + FZ_GAP);
    fz_pool_used = start + bytes + FZ_GAP;
    fz_regions[fz_region_count].base = p;
    fz_regions[fz_region_count].size = bytes;
    fz_region_count++;
    return p;
}

void *fz_ptr(size_t esize, fz_fixer fix, int depth)
{
    unsigned choice = fz_u8();
    size_t count, i;
    unsigned char *p;
    if (esize == 0)
        esize = 1;
    switch (choice & 7u) {
    case 0:
        return NULL;
    case 1:
        /* an alias: an element of an object made before for this input (p == q, p < q,
         * a list that runs into itself) */
        if (fz_region_count) {
            struct fz_region *r = &fz_regions[fz_u8() % fz_region_count];
            size_t n = r->size / esize;
            if (n)
                return r->base + (fz_u8() % n) * esize;
        }
        break;
    default:
        break;
    }
    if (depth >= FZ_MAX_DEPTH)
        return NULL;
    count = (choice & 7u) == 2 ? FZ_LARGE_ARRAY_SIZE : FZ_ARRAY_SIZE;
    p = fz_alloc(esize * count);
    if (!p)
        return NULL;
    /* element by element, each followed by what its pointers point to: what the code reads
     * first (p[0], p[0].next->...) is near the start of the input */
    for (i = 0; i < count; i++) {
        fz_take(p + i * esize, esize);
        if (fix)
            fix(p + i * esize, depth + 1);
    }
    return p;
}

void fz_out(void *p, size_t esize, size_t count, fz_fixer fix)
{
    size_t i;
    if (!p || !(fz_u8() & 1u))
        return;
    fz_take(p, esize * count);
    if (fix)
        for (i = 0; i < count; i++)
            fix((unsigned char *)p + i * esize, 1);
}

void fz_end(int how)
{
    if (fz_end_armed) {
        fz_end_armed = 0;
        fz_ended(how);
        longjmp(fz_end_jump, how);
    }
    _exit(100 + how); /* ended outside the unit: never expected */
}

void fz_exit(int status)
{
    (void)status;
    fz_end(FZ_END_EXIT);
}

void fz_abort(void)
{
    fz_end(FZ_END_ABORT);
}

void fz_assert_fail(const char *assertion, const char *file, unsigned int line,
                    const char *function)
{
    (void)assertion;
    (void)file;
    (void)line;
    (void)function;
    fz_end(FZ_END_ASSERT);
}

#ifdef FZ_REPLAY
/* ---------------------------------------------------------------------------- replay
 * fz_replay FILE_OR_DIR...: every input through LLVMFuzzerTestOneInput, each in a forked
 * child that writes its gcov counters however the input ends (its exit status says how:
 * FZ_END_*), so no input can lose the others' coverage. Built with AddressSanitizer, an
 * invalid access (an index from the input past a global array) stops the child before it
 * writes anywhere, gcov's counters included. Prints one line of counts. */
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern void __gcov_dump(void);

static void fz_flush_and_die(int sig)
{
    __gcov_dump();
    _exit(128 + sig);
}

/* by FZ_END_*, then: an invalid access AddressSanitizer stopped (SIGABRT, with
 * ASAN_OPTIONS=abort_on_error=1), then: killed otherwise */
static int fz_replayed, fz_how[FZ_ENDINGS + 2];

static void fz_replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    pid_t pid;
    int status = 0;
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1u);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        return;
    }
    fclose(f);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        /* a backstop: the harness's own handlers return crashes and hangs to it */
        static const int sigs[] = {SIGABRT, SIGTRAP, SIGXCPU};
        struct rlimit cpu;
        size_t i;
        for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], fz_flush_and_die);
        cpu.rlim_cur = 10;
        cpu.rlim_max = 20;
        setrlimit(RLIMIT_CPU, &cpu);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        __gcov_dump();
        _exit(fz_last_ending < 0 ? 0 : fz_last_ending);
    }
    free(buf);
    if (pid < 0)
        return;
    waitpid(pid, &status, 0);
    fz_replayed++;
    if (WIFEXITED(status) && WEXITSTATUS(status) < FZ_ENDINGS)
        fz_how[WEXITSTATUS(status)]++;
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGABRT)
        fz_how[FZ_ENDINGS]++;
    else
        fz_how[FZ_ENDINGS + 1]++;
}

static void fz_replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        struct dirent **names;
        int k, n = scandir(path, &names, NULL, alphasort);
        for (k = 0; k < n; k++) {
            char full[4096];
            if (names[k]->d_name[0] != '.') {
                snprintf(full, sizeof full, "%s/%s", path, names[k]->d_name);
                fz_replay_path(full);
            }
            free(names[k]);
        }
        if (n >= 0)
            free(names);
    } else {
        fz_replay_file(path);
    }
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++)
        fz_replay_path(argv[i]);
    printf("inputs %d returned %d exit %d abort %d assert %d annotation %d assume %d "
           "crash %d hang %d invalid %d killed %d\n", fz_replayed, fz_how[0], fz_how[1],
           fz_how[2], fz_how[3], fz_how[4], fz_how[5], fz_how[6], fz_how[7], fz_how[8],
           fz_how[9]);
    return 0;
}
#endif /* FZ_REPLAY */
