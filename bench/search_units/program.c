/* A program in the verification-benchmark style: main takes its inputs from
 * __VERIFIER_nondet_*() and drives helper functions; reaching reach_error() is the
 * property a benchmark asks about. */
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void __VERIFIER_assume(int condition);
extern void abort(void);

void reach_error(void)
{
    abort();
}

/* The protocol's states: a frame is 0x7E, a length, that many bytes, their sum. */
enum { WAIT, LENGTH, BODY, CHECK, DONE, BAD };

static int step(int state, unsigned char byte, int *left, unsigned char *sum)
{
    switch (state) {
    case WAIT:
        return byte == 0x7E ? LENGTH : WAIT;
    case LENGTH:
        if (byte == 0 || byte > 4)
            return BAD;
        *left = byte;
        *sum = 0;
        return BODY;
    case BODY:
        *sum = (unsigned char)(*sum + byte);
        if (--*left == 0)
            return CHECK;
        return BODY;
    case CHECK:
        return byte == *sum ? DONE : BAD;
    default:
        return state;
    }
}

int main(void)
{
    int n = __VERIFIER_nondet_int();
    __VERIFIER_assume(n >= 0 && n <= 8);
    int state = WAIT, left = 0;
    unsigned char sum = 0;
    for (int i = 0; i < n; i++) {
        state = step(state, __VERIFIER_nondet_uchar(), &left, &sum);
        if (state == BAD)
            return 1;
        if (state == DONE)
            break;
    }
    if (state == DONE && sum == 0x55)
        reach_error();
    return 0;
}
