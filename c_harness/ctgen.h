/*
 * ctgen.h - test annotations for pytest-ctgen (CTGEN's annotation language).
 *
 * Include this header in a C unit to state what its functions require and
 * promise.  In an ordinary build every annotation compiles to nothing: the
 * statement forms become `((void)0)` and drop their arguments, so names that
 * exist only inside annotations (__rtt_return, auxiliary variables) never
 * need a declaration.  When pytest-ctgen analyses the unit it defines
 * CTGEN_ANALYSIS and brings its own definitions of the same macros.
 *
 * Every annotation is a statement and belongs inside a function body.
 *
 *   __rtt_precondition(COND);           the function is specified for inputs
 *                                       where COND holds; others are not tested
 *   __rtt_postcondition(COND);          COND holds whenever the function returns
 *   __rtt_testcase(PRE, POST, "REQ");   a named case: inputs meeting PRE must
 *                                       give POST; "REQ" lists requirement ids,
 *                                       comma separated
 *   __rtt_modifies(GLOBAL);             the function may write GLOBAL (one
 *                                       annotation per global)
 *   __rtt_assert(COND);                 COND holds each time control passes here
 *   __rtt_aux(TYPE, NAME);              declares a ghost variable that only
 *                                       annotations read and write
 *   __rtt_assign(NAME = EXPR);          updates a ghost variable
 *   __rtt_initial(EXPR)                 EXPR evaluated on entry to the function
 *                                       (inside postconditions)
 *   __rtt_return                        the returned value (inside annotations;
 *                                       plain 0 in an ordinary build)
 *   __rtt_extern();                     first statement of a definition that is
 *                                       the specification of an external function:
 *                                       calls of it are stubbed, its pre- and
 *                                       postconditions narrow what the stub may do,
 *                                       and its body is never run
 */
#ifndef CTGEN_H
#define CTGEN_H

#ifndef CTGEN_ANALYSIS

#define __rtt_precondition(...)   ((void)0)
#define __rtt_postcondition(...)  ((void)0)
#define __rtt_testcase(...)       ((void)0)
#define __rtt_modifies(...)       ((void)0)
#define __rtt_assert(...)         ((void)0)
#define __rtt_aux(...)            ((void)0)
#define __rtt_assign(...)         ((void)0)
#define __rtt_initial(x)          (x)
#define __rtt_return              0
#define __rtt_extern(...)         ((void)0)

#endif /* CTGEN_ANALYSIS */

#endif /* CTGEN_H */
