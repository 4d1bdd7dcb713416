/* contracts.c - functions specified with pytest-ctgen's annotations (c_harness/ctgen.h).
 *
 * arena_take    a bump allocator: pre/postcondition, two requirement-tagged test cases
 * checksum_run  a loop with an __rtt_assert and a ghost variable counting its work
 *
 * ../findings/contracts.c has functions whose annotations do not hold.
 */
#include <stddef.h>
#include <stdint.h>
#include "ctgen.h"

#define ARENA_BYTES 64u

static uint8_t arena[ARENA_BYTES];
size_t arena_top;           /* the next free byte of the arena */
uint32_t arena_refusals;    /* requests that did not fit */

/* Hands out `size` bytes of the arena, or NULL when they do not fit. */
uint8_t *arena_take(size_t size)
{
    uint8_t *block;

    __rtt_modifies(arena_top);
    __rtt_modifies(arena_refusals);
    __rtt_precondition(arena_top <= ARENA_BYTES && size > 0u);
    __rtt_postcondition(arena_top <= ARENA_BYTES);
    __rtt_testcase(size <= ARENA_BYTES - arena_top,
                   __rtt_return == &arena[__rtt_initial(arena_top)]
                       && arena_top == __rtt_initial(arena_top) + size,
                   "ARENA-1");
    __rtt_testcase(size > ARENA_BYTES - arena_top,
                   __rtt_return == NULL && arena_top == __rtt_initial(arena_top)
                       && arena_refusals == __rtt_initial(arena_refusals) + 1u,
                   "ARENA-2, ARENA-3");

    if (size > ARENA_BYTES - arena_top) {
        arena_refusals++;
        return NULL;
    }
    block = &arena[arena_top];
    arena_top += size;
    return block;
}

/* The 8-bit sum of the first n bytes of data; counts the bytes it added and the carries. */
uint8_t checksum_run(const uint8_t *data, uint8_t n)
{
    uint8_t sum = 0u;
    uint8_t i;

    __rtt_aux(int, added);
    __rtt_precondition(data != NULL && n <= 8u);
    __rtt_postcondition(added == n);
    __rtt_testcase(n == 0u, __rtt_return == 0u, "SUM-1");

    for (i = 0u; i < n; i++) {
        __rtt_assert(i < 8u);
        if ((uint8_t)(sum + data[i]) < sum) {
            sum = (uint8_t)(sum + data[i] + 1u);  /* end-around carry */
        } else {
            sum = (uint8_t)(sum + data[i]);
        }
        __rtt_assign(added = added + 1);
    }
    return sum;
}
