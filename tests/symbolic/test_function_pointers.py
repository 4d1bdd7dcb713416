"""Function pointers as C has them: a function-pointer input (parameter, global, field of
what a pointer points to) is NULL where the code checks for it or a callback the harness
generates (a stub of the pointer's type: the solver chooses what each call returns and
writes), or one of the unit's functions where a path compares or calls it as one; a call
through a pointer that holds `&f` executes `f`; a table of handlers indexed by an input
dispatches to each; calling NULL is undefined, so no case does. Every case passes against
gcc's build and gcov measures the coverage."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit
from pytest_ctgen.cases import Case, IntValue, PointerValue, StubPrototype

SORT = r"""
#include <stddef.h>

typedef int (*cmp_fn)(const void *a, const void *b);

/* Insertion sort by the comparison callback; returns how many elements it moved. */
int sort_ints(int *v, int n, cmp_fn cmp)
{
    int moves = 0;

    if (v == NULL || cmp == NULL) {
        return -1;
    }
    for (int i = 1; i < n; i++) {
        int x = v[i];
        int j = i - 1;
        while (j >= 0 && cmp(&v[j], &x) > 0) {
            v[j + 1] = v[j];
            j--;
            moves++;
        }
        v[j + 1] = x;
    }
    return moves;
}

/* The index of the first element the predicate accepts, or -1. */
int find_if(const int *v, int n, int (*pred)(int value, void *ctx), void *ctx)
{
    for (int i = 0; i < n; i++) {
        if (pred(v[i], ctx)) {
            return i;
        }
    }
    return -1;
}

static int descending(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

int sort_descending(int *v, int n)
{
    return sort_ints(v, n, descending);
}
"""


def _returns(fn_cases: tuple[Case, ...]) -> set[int]:
    return {c.expected.returns.value for c in fn_cases
            if isinstance(c.expected.returns, IntValue)}


def _param(case: Case, name: str) -> object:
    return next(p.value for p in case.params if p.name == name)


def _calls(case: Case, stub: str) -> int:
    return dict(case.expected.stub_call_counts).get(stub, 0)


def test_a_comparison_callback_is_a_stub_the_solver_scripts(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("sort.c", SORT)
    unit.assert_fully_covered("sort_ints", "find_if")
    sort = unit.functions["sort_ints"]
    cmp = "ctgen_cb_sort_ints_cmp"
    assert sort.callbacks == (StubPrototype(
        cmp, f"int {cmp}(const void *a, const void *b)",
        params=(("a", "pointer"), ("b", "pointer")), callback="cmp"),)
    # NULL where the code checks for it; the callback where the loop compares
    assert any(_param(c, "cmp") == PointerValue(None) for c in sort.cases)
    callback = PointerValue(cmp, function=True)
    compared = [c for c in sort.cases if _calls(c, cmp)]
    assert compared and all(_param(c, "cmp") == callback for c in compared)
    # the script of the callback drives the loop: a "greater" result moves an element
    moved = [c for c in compared if c.expected.returns.value > 0]
    assert moved and all(s.calls[0].returns.value > 0 for c in moved for s in c.stubs)
    find = unit.functions["find_if"]
    assert [s.name for s in find.callbacks] == ["ctgen_cb_find_if_pred"]
    assert _returns(find.cases) >= {-1, 0}
    # a call through a pointer holding one of the unit's functions executes it
    own = unit.functions["sort_descending"]
    assert own.callbacks == () and all(not c.stubs for c in own.cases)


DISPATCH = r"""
typedef enum { EVT_START, EVT_DATA, EVT_STOP, EVT_COUNT } event_t;
typedef int (*handler_t)(int arg);

static int running;
static int total;

static int on_start(int arg)
{
    if (running) {
        return -1;
    }
    running = 1;
    total = arg;
    return 0;
}

static int on_data(int arg)
{
    if (!running) {
        return -2;
    }
    total += arg;
    return total > 1000 ? 1000 : total;
}

static int on_stop(int arg)
{
    (void)arg;
    if (!running) {
        return -3;
    }
    running = 0;
    return total;
}

static const handler_t handlers[EVT_COUNT] = { on_start, on_data, on_stop };

/* Runs the handler of `evt`; what it returns says which handler did what. */
int dispatch(unsigned evt, int arg)
{
    if (evt >= EVT_COUNT) {
        return -100;
    }
    int r = handlers[evt](arg);
    if (r == -1) {
        return 1;   /* started twice */
    }
    if (r == -2) {
        return 2;   /* data while stopped */
    }
    if (r == -3) {
        return 3;   /* stopped twice */
    }
    if (r == 1000) {
        return 4;   /* saturated */
    }
    return 0;
}
"""


def test_a_table_of_handlers_indexed_by_an_input_dispatches_to_each(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("dispatch.c", DISPATCH)
    unit.assert_fully_covered()
    dispatch = unit.functions["dispatch"]
    assert _returns(dispatch.cases) == {-100, 0, 1, 2, 3, 4}
    # each handler's own refusal is reached through its entry of the table
    events = {c.expected.returns.value: _param(c, "evt") for c in dispatch.cases}
    assert (events[1], events[2], events[3]) == (IntValue(0), IntValue(1), IntValue(2))
    assert dispatch.callbacks == () and all(not c.stubs for c in dispatch.cases)


DRIVER = r"""
#include <stddef.h>
#include <stdint.h>

struct ops {
    int (*read)(uint8_t *buf, int n);
    void (*log)(const char *msg);
};

extern int uart_read(uint8_t *buf, int n);

static void quiet_log(const char *msg)
{
    (void)msg;
}

static const struct ops uart_ops = { uart_read, quiet_log };

/* Reads a frame (0xA5, length, payload) through the driver's operations; returns the
   payload's sum (at most 255), or why there is none. */
int drv_poll(const struct ops *ops, uint8_t *out, int cap)
{
    uint8_t hdr[2];
    int got = ops->read(hdr, 2);

    if (got < 0) {
        if (ops->log != NULL) {
            ops->log("read error");
        }
        return -1;
    }
    if (got < 2) {
        return 0;
    }
    if (hdr[0] != 0xA5u) {
        ops->log("bad header");
        return -2;
    }
    if (hdr[1] > cap) {
        return -3;
    }
    got = ops->read(out, hdr[1]);
    if (got != hdr[1]) {
        return -4;
    }
    int sum = 0;
    for (int i = 0; i < got; i++) {
        sum += out[i];
    }
    return sum > 255 ? 255 : sum;
}

int drv_poll_uart(uint8_t *out)
{
    return drv_poll(&uart_ops, out, 4);
}

/* Fills in the operations: the reader given, or the UART's. */
void drv_init(struct ops *ops, int (*reader)(uint8_t *buf, int n))
{
    ops->read = reader != NULL ? reader : uart_read;
    ops->log = quiet_log;
}
"""


def test_an_operations_struct_gets_callbacks_whose_writes_drive_the_branches(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("driver.c", DRIVER)
    unit.assert_fully_covered("drv_poll", "drv_init")
    poll = unit.functions["drv_poll"]
    read, log = "ctgen_cb_drv_poll_ops_read", "ctgen_cb_drv_poll_ops_log"
    assert [(s.name, s.callback, s.prototype) for s in poll.callbacks] == [
        (log, "ops->log", f"void {log}(const char *msg)"),
        (read, "ops->read", f"int {read}(unsigned char *buf, int n)")]
    assert _returns(poll.cases) >= {-1, 0, -2, -3, -4, 255}
    by_result = {c.expected.returns.value: c for c in poll.cases}
    # the header the read callback writes decides: not 0xA5, or 0xA5 and a length
    header = {r: next(s for s in by_result[r].stubs if s.name == read).calls[0].writes[0]
              for r in (-2, -3, 255)}
    assert header[-2].name == "*(unsigned char *)buf" and header[-2].value.data[0] != 0xA5
    assert header[-3].value.data[0] == header[255].value.data[0] == 0xA5
    assert _calls(by_result[255], read) == 2 and _calls(by_result[-2], log) == 1
    # a field the path never calls costs nothing: NULL in the case's object
    first = next(o for o in by_result[0].objects if o.name == "ctgen_obj_ops")
    assert dict(first.value.elements[0].fields)["log"] == PointerValue(None)
    # stored pointers to the unit's functions (and to a stub) are predicted and checked
    init = unit.functions["drv_init"]
    stored = {dict(o.value.elements[0].fields)["read"]
              for c in init.cases for o in c.expected.objects}
    assert stored == {PointerValue("uart_read", function=True),
                      PointerValue("ctgen_cb_drv_init_reader", function=True)}
    # the table's read is the undefined uart_read: a stub, called through the pointer
    uart = unit.functions["drv_poll_uart"]
    assert uart.cases and all(_calls(c, "uart_read") >= 1 for c in uart.cases)
    coverage = unit.run.coverage()
    assert (coverage["drv_poll"].branches_covered, coverage["drv_poll"].branches_total) == \
        (14, 14)


RING = r"""
#include <stddef.h>
#include <stdint.h>

typedef struct ring ring_t;
typedef enum { RING_EVT_READ, RING_EVT_WRITE } ring_evt_t;
typedef void (*ring_evt_fn)(ring_t *ring, ring_evt_t evt, size_t len);

struct ring {
    uint8_t *buf;
    size_t size;
    size_t r;
    size_t w;
    ring_evt_fn evt_fn;
};

int ring_init(ring_t *ring, void *mem, size_t size)
{
    if (ring == NULL || mem == NULL || size < 2) {
        return 0;
    }
    ring->buf = mem;
    ring->size = size;
    ring->r = 0;
    ring->w = 0;
    ring->evt_fn = NULL;
    return 1;
}

void ring_set_evt_fn(ring_t *ring, ring_evt_fn fn)
{
    if (ring != NULL) {
        ring->evt_fn = fn;
    }
}

size_t ring_free(const ring_t *ring)
{
    if (ring == NULL || ring->buf == NULL) {
        return 0;
    }
    if (ring->w >= ring->r) {
        return ring->size - (ring->w - ring->r) - 1;
    }
    return ring->r - ring->w - 1;
}

size_t ring_write(ring_t *ring, const uint8_t *data, size_t len)
{
    if (ring == NULL || ring->buf == NULL || data == NULL || ring->size > 8) {
        return 0;
    }
    size_t done = 0;
    while (done < len && (ring->w + 1) % ring->size != ring->r) {
        ring->buf[ring->w] = data[done];
        ring->w = (ring->w + 1) % ring->size;
        done++;
    }
    if (done > 0 && ring->evt_fn != NULL) {
        ring->evt_fn(ring, RING_EVT_WRITE, done);
    }
    return done;
}
"""


def test_a_handle_with_an_event_callback_field_is_generated(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("ring.c", RING)
    unit.assert_fully_covered()
    for name in ("ring_init", "ring_free"):  # never call it: no callback
        assert unit.functions[name].callbacks == ()
    write = unit.functions["ring_write"]
    evt = "ctgen_cb_ring_write_ring_evt_fn"
    assert [(s.name, s.callback) for s in write.callbacks] == [(evt, "ring->evt_fn")]
    notified = [c for c in write.cases if _calls(c, evt)]
    assert notified and all(_calls(c, evt) == 1 for c in notified)
    assert any(not _calls(c, evt) and c.finding is None and c.expected.returns.value > 0
               for c in write.cases)
    # a handle whose size is 0 divides by it: a finding, the path ends there
    assert [f.split(": ", 1)[1] for f in unit.findings["ring_write"]] == [
        "division by zero in (ring->w + 1) % ring->size"]
    stored = unit.functions["ring_set_evt_fn"]
    assert [s.callback for s in stored.callbacks] == ["fn"]


UNDEFINED = r"""
typedef int (*handler_t)(int x);

static int twice(int x) { return 2 * x; }
static int negate(int x) { return -x; }

int call_then_check(handler_t h, int x)
{
    int r = h(x);
    if (h == 0) {
        return -1;
    }
    return r;
}

int deref_then_check(const int *p)
{
    int v = *p;
    if (p == 0) {
        return -1;
    }
    return v;
}

int which(handler_t h, int x)
{
    if (h == twice) {
        return 2;
    }
    if (h == negate) {
        return 3;
    }
    return h != 0 ? h(x) : 0;
}

handler_t pick(int k)
{
    return k > 0 ? twice : negate;
}
"""


def test_calling_null_is_undefined_and_pointers_compare_with_functions(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("which.c", UNDEFINED)
    # a call through a pointer the code has not tested is assumed to have a target, as a
    # dereference is: the NULL test after it is only reached through that undefined call,
    # so it is listed as not reached, never unreachable
    line = UNDEFINED.splitlines().index("    if (h == 0) {") + 1
    called = unit.functions["call_then_check"]
    assert not called.unreachable and called.stop_reason == "approximation"
    assert [(o.line, o.label) for o in called.not_reached] == [(line, "true")]
    assert all(_param(c, "h") != PointerValue(None) for c in called.cases)
    dereferenced = unit.functions["deref_then_check"]
    assert not dereferenced.unreachable
    assert [o.label for o in dereferenced.not_reached] == ["true"]
    # an input equal to one of the unit's functions where the path compares it with one
    unit.assert_fully_covered("which", "pick")
    which = {c.expected.returns.value: _param(c, "h") for c in unit.functions["which"].cases}
    assert which[2] == PointerValue("twice", function=True)
    assert which[3] == PointerValue("negate", function=True)
    assert {c.expected.returns for c in unit.functions["pick"].cases} == {
        PointerValue("twice", function=True), PointerValue("negate", function=True)}


SOURCES = r"""
#include <stddef.h>

typedef int (*tick_fn)(int n);
extern void register_tick(tick_fn fn);
extern tick_fn lookup(int id);

static int on_tick(int n) { return n + 1; }
tick_fn g_hook;

void setup(void)
{
    register_tick(on_tick);
}

int run_hook(int n)
{
    if (g_hook == NULL) {
        return -1;
    }
    return g_hook(n) > 10 ? 1 : 0;
}

int run_lookup(int id)
{
    tick_fn f = lookup(id);
    if (f == NULL) {
        return -1;
    }
    return f(id) == 3 ? 3 : 0;
}

struct node {
    int v;
    int (*visit)(struct node *self);
};

int visit_all(struct node *nodes, int n)
{
    int seen = 0;
    for (int i = 0; i < n && i < 3; i++) {
        if (nodes[i].visit != NULL && nodes[i].visit(&nodes[i]) > 0 && nodes[i].v == 7) {
            seen++;
        }
    }
    return seen;
}
"""


def test_globals_stub_results_and_array_elements_get_callbacks(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("sources.c", SOURCES)
    unit.assert_fully_covered("run_hook", "run_lookup", "visit_all")
    hook = unit.functions["run_hook"]
    assert [s.callback for s in hook.callbacks] == ["g_hook"]
    assert {c.globals[0].value for c in hook.cases} == {
        PointerValue(None), PointerValue("ctgen_cb_run_hook_g_hook", function=True)}
    # a stub returns NULL or a callback, which the path then calls
    found = unit.functions["run_lookup"]
    assert [(s.name, s.callback) for s in found.callbacks] == [
        ("ctgen_cb_run_lookup_lookup_0", "lookup#0")]
    # a stub given a function pointer only logs it
    setup = unit.functions["setup"]
    assert setup.callbacks == () and [s.name for c in setup.cases for s in c.stubs] == \
        ["register_tick"]
    # each element's callback, which writes the node it is given
    visit = unit.functions["visit_all"]
    assert {s.callback for s in visit.callbacks} <= {"nodes->visit", "nodes[1].visit",
                                                     "nodes[2].visit"}
    counted = [c for c in visit.cases if c.expected.returns.value > 0]
    assert counted and all(w.name == "(*self)" and dict(w.value.fields)["v"] == IntValue(7)
                           for c in counted for s in c.stubs for k in s.calls
                           for w in k.writes if k.returns.value > 0)
