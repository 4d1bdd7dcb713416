/* fz_runtime.h: the C side of the benchmark's libFuzzer harnesses (see bench/fuzz_harness.py).
 *
 * A generated harness includes this header, then the unit under test, and defines
 * LLVMFuzzerTestOneInput, which decodes the function's inputs from the fuzz input: its
 * parameters, the globals it reads, the objects pointer inputs point to and what each
 * call of an undefined function returns or writes. fz_runtime.c holds the definitions; it
 * is compiled without coverage instrumentation, so only the unit's code gives libFuzzer
 * its features. Built with -DFZ_REPLAY, fz_runtime.c also has a main() that replays files
 * (libFuzzer's corpus) one by one in forked children, for gcov.
 */
#ifndef FZ_RUNTIME_H
#define FZ_RUNTIME_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
/* the harness's own decoding code gives libFuzzer no features: only the unit's code does
 * (and none of the unit's code may be inlined into it: the target is called through a
 * volatile pointer, stubs are never inlined into the unit) */
#define FZ_UNINSTRUMENTED __attribute__((no_sanitize("coverage"), noinline))
#else
#define FZ_UNINSTRUMENTED __attribute__((noinline))
#endif

/* How many elements a fresh object a pointer input points to has (pytest-ctgen's
 * --ctgen-array-size), and how many in its large variant. */
#ifndef FZ_ARRAY_SIZE
#define FZ_ARRAY_SIZE 10
#endif
#ifndef FZ_LARGE_ARRAY_SIZE
#define FZ_LARGE_ARRAY_SIZE 64
#endif
/* Objects behind pointers are made up to this many levels deep; deeper pointers are NULL
 * or point into an object made already. */
#ifndef FZ_MAX_DEPTH
#define FZ_MAX_DEPTH 2
#endif

typedef void (*fz_fixer)(unsigned char *object, int depth);

/* Start decoding one fuzz input; every object made for the previous one is dropped. */
void fz_begin(const uint8_t *data, size_t size);
/* The next n bytes of the input into dst (zeros once the input is used up). */
void fz_take(void *dst, size_t n);
/* The next byte of the input (0 once it is used up). */
unsigned fz_u8(void);
/* A pointer decoded from the input: NULL, into an object made before for this input (an
 * alias), or to a fresh object of FZ_ARRAY_SIZE (or FZ_LARGE_ARRAY_SIZE) elements of
 * `esize` bytes filled from the input element by element, each followed by what `fix`
 * takes for its pointers (and masks of its _Bools): depth first. The
 * object containing the pointer is `depth` levels below a parameter or global. */
void *fz_ptr(size_t esize, fz_fixer fix, int depth);
/* What a stub writes through a non-const pointer parameter: `count` elements. */
void fz_out(void *p, size_t esize, size_t count, fz_fixer fix);

/* The function under test ending the program (exit, abort, a failed assert or
 * __rtt_assert), crashing (SIGSEGV, SIGFPE, SIGBUS, SIGILL) or hanging (running through two
 * ticks of a one-second watchdog) returns to LLVMFuzzerTestOneInput through fz_end_jump,
 * so that a fuzzing run survives every input. The signal handlers are installed with
 * SA_NODEFER, so a plain longjmp out of them leaves no signal blocked. */
extern jmp_buf fz_end_jump;
extern volatile int fz_end_armed;
#define FZ_END_RETURN 0
#define FZ_END_EXIT 1
#define FZ_END_ABORT 2
#define FZ_END_ASSERT 3
#define FZ_END_ANNOTATION 4
#define FZ_END_ASSUME 5
#define FZ_END_CRASH 6
#define FZ_END_HANG 7
#define FZ_ENDINGS 8
__attribute__((noreturn)) void fz_end(int how);
/* Record how the current input ended (FZ_END_RETURN when the call returned). */
void fz_ended(int how);

/* What the unit's calls of exit, abort and assert's failure become (see the harness). */
__attribute__((noreturn)) void fz_exit(int status);
__attribute__((noreturn)) void fz_abort(void);
__attribute__((noreturn)) void fz_assert_fail(const char *assertion, const char *file,
                                              unsigned int line, const char *function);

#endif /* FZ_RUNTIME_H */
