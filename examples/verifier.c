/* verifier.c - a program in the style of the software-verification benchmarks (SV-COMP):
 * main reads its inputs from __VERIFIER_nondet_*() and restricts them with
 * __VERIFIER_assume; reach_error() marks the state the benchmark asks about. pytest-ctgen
 * treats the nondet functions as stubs, the assumption as an assumption and reaching
 * reach_error() as one more branch to cover. */
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assume(int condition);
extern void abort(void);

void reach_error(void)
{
    abort();
}

int main(void)
{
    int limit = __VERIFIER_nondet_int();
    unsigned int steps = __VERIFIER_nondet_uint();
    int total = 0;
    unsigned int i;

    __VERIFIER_assume(limit > 0 && limit < 1000);
    __VERIFIER_assume(steps <= 5u);
    for (i = 0; i < steps; i++) {
        total += __VERIFIER_nondet_int() % 10;
    }
    if (total > limit) {
        reach_error();
    }
    return 0;
}
