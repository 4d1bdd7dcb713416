/*
 * ctgen_mcdc.h - what an MC/DC-instrumented copy of a unit calls (pytest-ctgen).
 *
 * The copy (frontend/mcdc_instrument.py) rewrites each decision d of two or more
 * conditions as
 *
 *     ctgen_mcdc_decision(d, ctgen_mcdc_begin(d) ? (... ctgen_mcdc_cond(d, k, (c_k) != 0) ...) : 0)
 *
 * so that C's own short-circuit evaluation decides which conditions run.  The runtime
 * (ctgen_mcdc.c, its own translation unit) records each completed evaluation: the
 * decision, which conditions were evaluated and to what, and the outcome.
 * No system header here: the unit is the first to declare the C library.
 */
#ifndef CTGEN_MCDC_H
#define CTGEN_MCDC_H

/* A new evaluation of decision d starts (always 1). */
int ctgen_mcdc_begin(int decision);
/* Condition k of the running evaluation of decision d has the value `value` (0 or 1),
 * which it returns. */
int ctgen_mcdc_cond(int decision, int condition, int value);
/* The running evaluation of decision d is over with `outcome` (0 or 1), which it
 * returns. */
int ctgen_mcdc_decision(int decision, int outcome);
/* Where the evaluations go from now on: the file at `path` (appended to; 0 stops
 * recording), each record tagged `tag` (the case the harness runs next). */
void ctgen_mcdc_output(const char *path, int tag);

#endif /* CTGEN_MCDC_H */
