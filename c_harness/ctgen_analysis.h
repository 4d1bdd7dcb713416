/*
 * ctgen_analysis.h - annotation macros as pytest-ctgen's front end sees them.
 *
 * pytest-ctgen preprocesses every unit with -DCTGEN_ANALYSIS and
 * `-include ctgen_analysis.h`, so these definitions win over the no-op ones
 * in ctgen.h (which are guarded by #ifndef CTGEN_ANALYSIS).  For now the
 * annotations are dropped here as well; annotation support will replace the
 * definitions below with forms the front end can read back from the AST.
 */
#ifndef CTGEN_ANALYSIS_H
#define CTGEN_ANALYSIS_H

#define __rtt_precondition(...)   ((void)0)
#define __rtt_postcondition(...)  ((void)0)
#define __rtt_testcase(...)       ((void)0)
#define __rtt_modifies(...)       ((void)0)
#define __rtt_assert(...)         ((void)0)
#define __rtt_aux(...)            ((void)0)
#define __rtt_assign(...)         ((void)0)
#define __rtt_initial(x)          (x)

#endif /* CTGEN_ANALYSIS_H */
