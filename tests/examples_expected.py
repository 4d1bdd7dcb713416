"""Expected gcov counts for the example units in examples/.

Measured with gcc 12.2.0 (Debian 12.2.0-14+deb12u1) and gcov 12.2.0 on x86-64, as
corpus/MANIFEST.md "How the gcov counts were measured" describes: each FILE.c is
compiled alone with ``gcc -std=c11 -O0 --coverage -c FILE.c``, linked with a
``int main(void) { return 0; }`` that calls nothing, run once, and read back with
``gcov -b -j``.  Per function:

- ``branches``: gcov branch outcomes (``len(line["branches"])`` summed over the JSON
  lines whose ``function_name`` is the function); per file they sum to gcov's
  "Branches executed: ... of N".
- ``lines``: gcov's executable lines of the function (JSON line entries with that
  ``function_name``).  gcov counts the line carrying the function's name, not the
  line of ``{``, and counts the closing ``}`` only for a void function without a
  final return (here only ``debounce_reset``).
- ``infeasible``: ``(gcov line, description)`` of outcomes no input can take.

Feasibility was validated with a throwaway driver per file (not committed) that
``#include``s the unit, sets the globals and static globals directly and runs
200 000 random inputs (biased to 0, +-1, MIN/MAX, NaN, +-inf) plus directed ones,
under ``--coverage`` and, separately, under ``-fsanitize=undefined``.  Every outcome
was reached except the one listed as infeasible.  Two outcomes are *defensive*:
reachable only with an enum value outside its enumerators (see the comments).
The driver build gave the same per-function counts as the stand-alone build.
"""

EXPECTED = {
    "contracts.c": {
        # annotations (issue 5); measured with ctgen.h's no-op annotations, which compile
        # to nothing, as the harness's annotation lines are excluded from gcov's counts
        "arena_take": {"branches": 2, "infeasible": [], "lines": 7},  # line 19
        "checksum_run": {"branches": 4, "infeasible": [], "lines": 7},  # line 46
    },
    "bitmask.c": {
        # only the ERROR test of the ?: on line 38 branches; gcc folds the other three ?: (lines 38-41)
        "status_decode": {"branches": 2, "infeasible": [], "lines": 9},  # line 31
        "status_parity_ok": {"branches": 2, "infeasible": [], "lines": 7},  # line 47
        "popcount16": {"branches": 2, "infeasible": [], "lines": 4},  # line 60
        "highest_bit": {"branches": 4, "infeasible": [], "lines": 8},  # line 71
        "field_insert": {"branches": 8, "infeasible": [], "lines": 5},  # line 86
    },
    "buffers.c": {
        # pointers, aliasing, pointer-to-pointer, arrays of structs, a 2-D table (issue 3);
        # every outcome was reached by the generated cases, measured by gcov
        "copy_overlapping": {"branches": 14, "infeasible": [], "lines": 11},  # line 26
        "ring_fill": {"branches": 6, "infeasible": [], "lines": 7},  # line 49
        "set_and_check": {"branches": 4, "infeasible": [], "lines": 6},  # line 63
        "take_byte": {"branches": 6, "infeasible": [], "lines": 8},  # line 75
        "find_peak": {"branches": 10, "infeasible": [], "lines": 8},  # line 91
        "frame_append": {"branches": 6, "infeasible": [], "lines": 10},  # line 108
        "gain_scale": {"branches": 10, "infeasible": [], "lines": 7},  # line 130
        "sum_before": {"branches": 4, "infeasible": [], "lines": 6},  # line 145
        "row_sum": {"branches": 6, "infeasible": [], "lines": 7},  # line 157
    },
    "checksum.c": {
        "sum8_word": {"branches": 2, "infeasible": [], "lines": 5},  # line 18
        "crc8_word": {"branches": 6, "infeasible": [], "lines": 10},  # line 30
        "frame_check": {"branches": 12, "infeasible": [], "lines": 20},  # line 52
        "first_zero_byte": {"branches": 4, "infeasible": [], "lines": 6},  # line 83
    },
    "debounce.c": {
        # s_run is a static global; the static local s_calls never decides a branch
        "debounce_update": {"branches": 12, "infeasible": [], "lines": 15},  # line 16
        "debounce_feed": {"branches": 6, "infeasible": [], "lines": 9},  # line 41
        "debounce_reset": {"branches": 0, "infeasible": [], "lines": 5},  # line 60
        "debounce_pending": {"branches": 4, "infeasible": [], "lines": 4},  # line 68
    },
    "drivers.c": {
        # stubs (issue 4): two calls and a volatile global the driver writes, a struct out
        # parameter, a retry loop; measured from the .gcno (the externs are not linked)
        "sample_step": {"branches": 10, "infeasible": [], "lines": 11},  # line 34
        "config_gain": {"branches": 10, "infeasible": [], "lines": 11},  # line 55
        "spi_command": {"branches": 8, "infeasible": [], "lines": 14},  # line 77
    },
    "specs.c": {
        # stubs narrowed by __rtt_extern() specifications (issue 4); adc_sample and
        # queue_push are the specifications, not functions under test; compiled with
        # -Ic_harness for ctgen.h
        "channel_millivolts": {"branches": 6, "infeasible": [(44, "true outcome of `raw > ADC_FULL_SCALE`: adc_sample's postcondition bounds its result by 4095")], "lines": 9},  # line 37
        "send_pair": {"branches": 6, "infeasible": [], "lines": 8},  # line 54
    },
    "fixed_point.c": {
        "q15_sat": {"branches": 4, "infeasible": [], "lines": 6},  # line 12
        "q15_mul": {"branches": 2, "infeasible": [], "lines": 4},  # line 25
        "q15_ratio": {"branches": 10, "infeasible": [], "lines": 11},  # line 35
        "q15_mac_sat": {"branches": 4, "infeasible": [], "lines": 7},  # line 55
        "q15_to_permille": {"branches": 2, "infeasible": [], "lines": 4},  # line 71
    },
    "geometry.c": {
        "max16": {"branches": 2, "infeasible": [], "lines": 4},  # line 12
        "min16": {"branches": 2, "infeasible": [], "lines": 4},  # line 20
        "rect_contains": {"branches": 8, "infeasible": [], "lines": 2},  # line 28
        "rect_intersect": {"branches": 4, "infeasible": [], "lines": 9},  # line 35
        "rect_area": {"branches": 4, "infeasible": [], "lines": 6},  # line 52
        "point_clamp": {"branches": 8, "infeasible": [], "lines": 10},  # line 63
        "poly_hits": {"branches": 12, "infeasible": [], "lines": 10},  # line 80
    },
    "intdiv.c": {
        # line 15: two ?: in the source, gcc folds the inner one (a & INT16_MIN), so 2 outcomes
        "sat_div_i16": {"branches": 6, "infeasible": [], "lines": 7},  # line 10
        "mod_floor_i16": {"branches": 6, "infeasible": [], "lines": 7},  # line 25
        "div_round_i32": {"branches": 14, "infeasible": [], "lines": 15},  # line 40
        "index_ok": {"branches": 0, "infeasible": [], "lines": 2},  # line 71
    },
    "lookup.c": {
        "ntc_point": {"branches": 2, "infeasible": [], "lines": 5},  # line 21
        # recursive, depth at most 4
        "find_segment": {"branches": 4, "infeasible": [], "lines": 7},  # line 32
        # line 67: the (int16_t) cast keeps gcc from folding the clamping ?: into MIN/MAX
        "ntc_to_decic": {"branches": 8, "infeasible": [], "lines": 11},  # line 48
        "ntc_table_ok": {"branches": 4, "infeasible": [(77, "true outcome of `k_ntc_adc[i] >= prev`: the const table is strictly decreasing")], "lines": 5},  # line 71
    },
    "motor_fsm.c": {
        # defensive: the switch default (line 29) needs g_motor_state outside the enum, e.g. 5
        "motor_step": {"branches": 30, "infeasible": [], "lines": 45},  # line 19
        # defensive: the implicit default of the switch (line 85) needs ev outside the enumerators, e.g. 6
        "motor_event_allowed": {"branches": 13, "infeasible": [], "lines": 16},  # line 81
        "motor_ticks_to_speed": {"branches": 4, "infeasible": [], "lines": 6},  # line 105
    },
    "registers.c": {
        # bit-fields, unions, byte views through pointer casts, nested structs (issue 3);
        # every outcome was reached by the generated cases, measured by gcov
        "status_classify": {"branches": 10, "infeasible": [], "lines": 11},  # line 33
        "status_set_trim": {"branches": 4, "infeasible": [], "lines": 11},  # line 54
        "low_byte": {"branches": 2, "infeasible": [], "lines": 5},  # line 71
        "float_kind": {"branches": 8, "infeasible": [], "lines": 8},  # line 82
        "channel_check": {"branches": 12, "infeasible": [], "lines": 10},  # line 102
        "channel_copy_limits": {"branches": 4, "infeasible": [], "lines": 8},  # line 120
        "fill_through": {"branches": 5, "infeasible": [], "lines": 18},  # line 134
        "reg_mark_ready": {"branches": 4, "infeasible": [], "lines": 8},  # line 163
        "active_trim": {"branches": 4, "infeasible": [], "lines": 5},  # line 178
    },
    "sat_arith.c": {
        "sat_add_i16": {"branches": 4, "infeasible": [], "lines": 7},  # line 8
        "sat_add_u8": {"branches": 2, "infeasible": [], "lines": 5},  # line 22
        "sat_sub_u8": {"branches": 2, "infeasible": [], "lines": 3},  # line 33
        "sat_sub_i32": {"branches": 4, "infeasible": [], "lines": 6},  # line 42
        "sat_mul_i32": {"branches": 4, "infeasible": [], "lines": 7},  # line 53
    },
    "triangle_double.c": {
        "abs_d": {"branches": 2, "infeasible": [], "lines": 4},  # line 17
        "near_eq": {"branches": 2, "infeasible": [], "lines": 3},  # line 26
        "not_finite": {"branches": 0, "infeasible": [], "lines": 3},  # line 34
        "tri_classify_d": {"branches": 34, "infeasible": [], "lines": 25},  # line 41
        "tri_perimeter_f": {"branches": 4, "infeasible": [], "lines": 5},  # line 79
    },
    "text.c": {
        # C library models (issue 4): strlen, strcpy, strncpy, ctype, toupper, exit, abort
        "normalize_name": {"branches": 10, "infeasible": [], "lines": 13},  # line 14
        "char_class": {"branches": 10, "infeasible": [], "lines": 12},  # line 38
        "take_field": {"branches": 2, "infeasible": [], "lines": 5},  # line 60
        "checked_mode": {"branches": 4, "infeasible": [], "lines": 6},  # line 70
    },
    "tritype.c": {
        "sides_positive": {"branches": 6, "infeasible": [], "lines": 2},  # line 14
        "tri_inequality_ok": {"branches": 6, "infeasible": [], "lines": 7},  # line 20
        "tritype": {"branches": 14, "infeasible": [], "lines": 10},  # line 32
        "tri_perimeter": {"branches": 6, "infeasible": [], "lines": 8},  # line 50
        "tri_is_right": {"branches": 12, "infeasible": [], "lines": 7},  # line 66
    },
    "units.c": {
        "c_to_f": {"branches": 0, "infeasible": [], "lines": 2},  # line 11
        "f_to_c": {"branches": 2, "infeasible": [], "lines": 5},  # line 17
        "adc_to_mv": {"branches": 2, "infeasible": [], "lines": 7},  # line 28
        "temp_to_centi": {"branches": 8, "infeasible": [], "lines": 9},  # line 43
        "fraction_to_percent": {"branches": 4, "infeasible": [], "lines": 6},  # line 61
    },
    "verifier.c": {
        # SV-COMP style: the false outcomes of the && inside __VERIFIER_assume contradict
        # the assumption, so no input of interest takes them
        "reach_error": {"branches": 0, "infeasible": [], "lines": 2},  # line 11
        "main": {"branches": 8, "infeasible": [
            (23, "false outcome of `limit > 0`: excluded by __VERIFIER_assume"),
            (23, "false outcome of `limit < 1000`: excluded by __VERIFIER_assume")],
            "lines": 11},  # line 16
    },
}
