/*
 * ctgen_mcdc.c - the runtime of an MC/DC-instrumented copy of a unit (pytest-ctgen).
 *
 * Each evaluation of a decision is a frame on a stack (a condition may call a function
 * whose decisions run before its own decision is over, or the same decision again, by
 * recursion): ctgen_mcdc_begin pushes one, ctgen_mcdc_cond sets a condition's bit in the
 * topmost frame of its decision, ctgen_mcdc_decision pops that frame (and any a longjmp
 * left above it) and records it.
 *
 * A record is the text line "tag decision evaluated values outcome\n" (decimal tag and
 * decision; evaluated and values are hexadecimal bit masks over the conditions, bit k
 * for condition k: up to 64 conditions per decision).  Each distinct record is written
 * once per output, at once (write(2) on an O_APPEND file): a case that crashes or runs
 * into its timeout keeps what it evaluated, and a loop does not grow the file.
 *
 * The output is the file ctgen_mcdc_output names, or else the file named by the
 * environment variable CTGEN_MCDC_FILE (tag -1), opened at the first record.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctgen_mcdc.h"

#define CTGEN_MCDC_DEPTH 256
#define CTGEN_MCDC_SEEN 4096 /* a power of two */

struct ctgen_mcdc_frame {
    int decision;
    unsigned long long evaluated;
    unsigned long long values;
};

struct ctgen_mcdc_record {
    int used;
    int decision;
    int outcome;
    unsigned long long evaluated;
    unsigned long long values;
};

static struct ctgen_mcdc_frame ctgen_mcdc_stack[CTGEN_MCDC_DEPTH];
static int ctgen_mcdc_depth; /* may exceed CTGEN_MCDC_DEPTH: those frames are not kept */
static struct ctgen_mcdc_record ctgen_mcdc_seen[CTGEN_MCDC_SEEN];
static int ctgen_mcdc_fd = -1;
static int ctgen_mcdc_tag = -1;
static int ctgen_mcdc_configured; /* ctgen_mcdc_output was called */

/* Records go to `path` from now on, tagged `tag`; what was written before is forgotten.
 * The evaluations under way are kept: the first record of a process opens the file of
 * CTGEN_MCDC_FILE here while the decisions around it are still being evaluated. */
static void ctgen_mcdc_open(const char *path, int tag) {
    if (ctgen_mcdc_fd >= 0) {
        close(ctgen_mcdc_fd);
    }
    ctgen_mcdc_fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    ctgen_mcdc_tag = tag;
    ctgen_mcdc_configured = 1;
    memset(ctgen_mcdc_seen, 0, sizeof ctgen_mcdc_seen);
}

void ctgen_mcdc_output(const char *path, int tag) {
    ctgen_mcdc_open(path, tag);
    ctgen_mcdc_depth = 0; /* between cases: no evaluation is under way */
}

int ctgen_mcdc_begin(int decision) {
    if (ctgen_mcdc_depth < CTGEN_MCDC_DEPTH) {
        struct ctgen_mcdc_frame *f = &ctgen_mcdc_stack[ctgen_mcdc_depth];
        f->decision = decision;
        f->evaluated = 0;
        f->values = 0;
    }
    ctgen_mcdc_depth++;
    return 1;
}

/* The index of the topmost kept frame of `decision`, or -1. */
static int ctgen_mcdc_frame_of(int decision) {
    int i = ctgen_mcdc_depth < CTGEN_MCDC_DEPTH ? ctgen_mcdc_depth : CTGEN_MCDC_DEPTH;
    while (--i >= 0) {
        if (ctgen_mcdc_stack[i].decision == decision) {
            return i;
        }
    }
    return -1;
}

int ctgen_mcdc_cond(int decision, int condition, int value) {
    int i = ctgen_mcdc_frame_of(decision);
    if (i >= 0 && condition >= 0 && condition < 64) {
        unsigned long long bit = 1ULL << condition;
        ctgen_mcdc_stack[i].evaluated |= bit;
        if (value) {
            ctgen_mcdc_stack[i].values |= bit;
        } else {
            ctgen_mcdc_stack[i].values &= ~bit;
        }
    }
    return value;
}

/* Whether the record is new (and now remembered). */
static int ctgen_mcdc_new(int decision, unsigned long long evaluated,
                          unsigned long long values, int outcome) {
    unsigned long long h = (unsigned long long)decision * 0x9E3779B97F4A7C15ULL;
    h ^= evaluated * 0xC2B2AE3D27D4EB4FULL;
    h ^= values * 0x165667B19E3779F9ULL + (unsigned long long)outcome;
    for (int probe = 0; probe < CTGEN_MCDC_SEEN; probe++) {
        struct ctgen_mcdc_record *r = &ctgen_mcdc_seen[(h + probe) & (CTGEN_MCDC_SEEN - 1)];
        if (!r->used) {
            r->used = 1;
            r->decision = decision;
            r->evaluated = evaluated;
            r->values = values;
            r->outcome = outcome;
            return 1;
        }
        if (r->decision == decision && r->evaluated == evaluated && r->values == values &&
            r->outcome == outcome) {
            return 0;
        }
    }
    return 1; /* full: written again, which the reader does not mind */
}

static void ctgen_mcdc_record(int decision, unsigned long long evaluated,
                              unsigned long long values, int outcome) {
    if (!ctgen_mcdc_configured) {
        const char *path = getenv("CTGEN_MCDC_FILE");
        ctgen_mcdc_open(path && *path ? path : 0, -1);
    }
    if (ctgen_mcdc_fd < 0 || !ctgen_mcdc_new(decision, evaluated, values, outcome)) {
        return;
    }
    char line[96];
    int n = snprintf(line, sizeof line, "%d %d %llx %llx %d\n", ctgen_mcdc_tag, decision,
                     evaluated, values, outcome);
    if (n > 0 && write(ctgen_mcdc_fd, line, (size_t)n) < 0) {
        /* nothing to do: the measurement misses this evaluation */
    }
}

int ctgen_mcdc_decision(int decision, int outcome) {
    int i = ctgen_mcdc_frame_of(decision);
    outcome = outcome != 0;
    if (i >= 0) {
        struct ctgen_mcdc_frame f = ctgen_mcdc_stack[i];
        ctgen_mcdc_depth = i;
        ctgen_mcdc_record(decision, f.evaluated, f.values & f.evaluated, outcome);
    } else if (ctgen_mcdc_depth > CTGEN_MCDC_DEPTH) {
        ctgen_mcdc_depth--; /* a frame too deep to keep */
    }
    return outcome;
}
