/*
 * ctgen_analysis.h - annotation macros as pytest-ctgen's front end sees them.
 *
 * pytest-ctgen preprocesses every unit with -DCTGEN_ANALYSIS and
 * `-include ctgen_analysis.h`, so these definitions win over the no-op ones
 * in ctgen.h (which are guarded by #ifndef CTGEN_ANALYSIS).  An annotation the
 * front end reads becomes a call of a reserved `__ctgen_annotation_*` name, which
 * the lowering takes out of the code; the others are still dropped here.
 */
#ifndef CTGEN_ANALYSIS_H
#define CTGEN_ANALYSIS_H

#define __rtt_precondition(...)   __ctgen_annotation_precondition(__VA_ARGS__)
#define __rtt_postcondition(...)  __ctgen_annotation_postcondition(__VA_ARGS__)
#define __rtt_testcase(...)       ((void)0)
#define __rtt_modifies(...)       __ctgen_annotation_modifies(__VA_ARGS__)
#define __rtt_assert(...)         ((void)0)
#define __rtt_aux(...)            ((void)0)
#define __rtt_assign(...)         ((void)0)
#define __rtt_initial(x)          __ctgen_annotation_initial(x)
#define __rtt_return              __ctgen_annotation_return
#define __rtt_extern(...)         __ctgen_annotation_extern(__VA_ARGS__)

#endif /* CTGEN_ANALYSIS_H */
