/*
 * ctgen_analysis.h - annotation macros as pytest-ctgen's front end sees them.
 *
 * pytest-ctgen renames every `__rtt_X` token of the files it analyses to the
 * reserved `__ctg_X` (same length) before preprocessing, so annotations reach
 * the parser as written whatever header defines `__rtt_X`.  They stay calls of
 * undeclared functions, which the lowering takes out of the code; only the
 * auxiliary declaration needs a macro, as its first argument is a type.
 * Annotations in headers, which are not renamed, come here through the
 * `__rtt_X` macros below (with -DCTGEN_ANALYSIS, ctgen.h leaves them to us).
 */
#ifndef CTGEN_ANALYSIS_H
#define CTGEN_ANALYSIS_H

#define __ctg_aux(type, name)     type name = __ctg_aux_declaration

#define __rtt_precondition(...)   __ctg_precondition(__VA_ARGS__)
#define __rtt_postcondition(...)  __ctg_postcondition(__VA_ARGS__)
#define __rtt_testcase(...)       __ctg_testcase(__VA_ARGS__)
#define __rtt_modifies(...)       __ctg_modifies(__VA_ARGS__)
#define __rtt_assert(...)         __ctg_assert(__VA_ARGS__)
#define __rtt_aux(type, name)     __ctg_aux(type, name)
#define __rtt_assign(...)         __ctg_assign(__VA_ARGS__)
#define __rtt_initial(x)          __ctg_initial(x)
#define __rtt_return              __ctg_return
#define __rtt_extern(...)         __ctg_extern(__VA_ARGS__)

/* <stdarg.h>'s va_list: __builtin_va_list reaches the parser as this pointer to
 * a tag of its own (VA_LIST_TAG in preprocess.py), so a va_list is told apart from other
 * pointers; the lowering models what it points at. */
typedef struct __ctgen_va_list_tag *__ctgen_va_list;

#endif /* CTGEN_ANALYSIS_H */
