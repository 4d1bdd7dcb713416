"""Lazily built inputs (symbolic/lazy.py): a pointer to a linked record points to nothing
until a path uses it, then to a fresh object, a record the case holds already, or NULL,
as the path needs. Lists get the lengths and shapes their branches need, rings close on
their sentinel, trees grow where the key goes; the case names each object by its access
path and gives links as pointers to those names; the driver builds the structure and the
compiled run checks the links the function rewrote. Every case ran against gcc's build
of the unit (`generated_unit`), and gcov measured full coverage."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from generated_unit import GeneratedUnit

from pytest_ctgen.cases import Binding, Case, PointerValue, RecordValue, Value

Generate = Callable[[str, str], GeneratedUnit]

SINGLY = r"""#include <stddef.h>
struct node { int v; struct node *next; };

int count(const struct node *n)
{
    int c = 0;
    while (n != NULL) {
        c++;
        n = n->next;
    }
    return c;
}

/* the position of the first node holding key, -1 when none does */
int find(const struct node *list, int key)
{
    int k = 0;
    for (const struct node *n = list; n != NULL; n = n->next) {
        if (n->v == key)
            return k;
        k++;
    }
    return -1;
}

void insert_sorted(struct node **head, struct node *n)
{
    struct node **p = head;
    while (*p != NULL && (*p)->v < n->v)
        p = &(*p)->next;
    n->next = *p;
    *p = n;
}

int remove_value(struct node **head, int v)
{
    for (struct node **p = head; *p != NULL; p = &(*p)->next) {
        if ((*p)->v == v) {
            *p = (*p)->next;
            return 1;
        }
    }
    return 0;
}

/* Floyd: 1 when the list runs into a cycle */
int has_cycle(const struct node *h)
{
    const struct node *slow = h, *fast = h;
    while (fast != NULL && fast->next != NULL) {
        slow = slow->next;
        fast = fast->next->next;
        if (slow == fast)
            return 1;
    }
    return 0;
}

/* seeded bug: the value after the node holding key, with no check that there is one */
int value_after(const struct node *n, int key)
{
    for (; n != NULL; n = n->next) {
        if (n->v == key)
            return n->next->v;
    }
    return -1;
}
"""

RING = r"""#include <stddef.h>
#include "ctgen.h"
/* FreeRTOS-style: a circular doubly linked list closed by its end item (the sentinel,
   value 0xffffffff), sorted by value */
struct item { unsigned value; struct item *next; struct item *prev; void *owner; };
struct list { unsigned count; struct item *index; struct item end; };

void ring_insert(struct list *l, struct item *n)
{
    __rtt_precondition(l->end.value == 0xffffffffu);
    __rtt_precondition(l->end.next->prev == &l->end && l->end.prev->next == &l->end);
    struct item *it;
    if (n->value == 0xffffffffu) {
        it = l->end.prev;
    } else {
        for (it = &l->end; it->next->value <= n->value; it = it->next) {
        }
    }
    n->next = it->next;
    n->next->prev = n;
    n->prev = it;
    it->next = n;
    l->count++;
}

unsigned ring_remove(struct list *l, struct item *n)
{
    n->next->prev = n->prev;
    n->prev->next = n->next;
    if (l->index == n)
        l->index = n->prev;
    l->count--;
    return l->count;
}

unsigned ring_length(const struct list *l)
{
    unsigned k = 0;
    for (const struct item *it = l->end.next; it != &l->end; it = it->next)
        k++;
    return k;
}
"""

TREE = r"""#include <stddef.h>
struct tnode { int key; struct tnode *left, *right; };

struct tnode *tree_insert(struct tnode *root, struct tnode *n)
{
    if (root == NULL) {
        n->left = n->right = NULL;
        return n;
    }
    struct tnode *t = root;
    for (;;) {
        if (n->key < t->key) {
            if (t->left == NULL) { t->left = n; break; }
            t = t->left;
        } else if (n->key > t->key) {
            if (t->right == NULL) { t->right = n; break; }
            t = t->right;
        } else {
            return root;
        }
    }
    n->left = n->right = NULL;
    return root;
}

const struct tnode *tree_lookup(const struct tnode *t, int key)
{
    while (t != NULL) {
        if (key == t->key)
            return t;
        t = key < t->key ? t->left : t->right;
    }
    return NULL;
}
"""


def _pointers(v: Value) -> Iterator[PointerValue]:
    if isinstance(v, PointerValue):
        yield v
    elif isinstance(v, RecordValue):
        for _, x in v.fields:
            yield from _pointers(x)


def _links(objects: tuple[Binding, ...]) -> dict[str, list[PointerValue]]:
    """The pointers each object of a case holds, by the object's name."""
    return {o.name: list(_pointers(o.value)) for o in objects}


def _returns(case: Case) -> object:
    value = case.expected.returns
    return getattr(value, "value", value)


def test_singly_linked_lists_get_the_lengths_their_branches_need(
        generated_unit: Generate) -> None:
    unit = generated_unit("slist.c", SINGLY)
    unit.assert_fully_covered("count", "find", "insert_sorted", "remove_value", "has_cycle")
    find = unit.functions["find"]
    # the empty list, the key in the first node, the key in a later one
    assert {_returns(c) for c in find.cases} >= {-1, 0, 1}
    later = next(c for c in find.cases if _returns(c) == 1)
    assert later.params[0].value == PointerValue("ctgen_obj_list")
    assert [o.declaration for o in later.objects] == ["struct node @", "struct node @"]
    assert _links(later.objects) == {"ctgen_obj_list": [PointerValue("ctgen_obj_list_next")],
                                     "ctgen_obj_list_next": [PointerValue(None)]}
    assert any(c.params[0].value == PointerValue(None) for c in find.cases)


def test_a_cycle_detector_gets_a_cycle(generated_unit: Generate) -> None:
    unit = generated_unit("cycle.c", SINGLY)
    unit.assert_fully_covered("has_cycle")
    cyclic = [c for c in unit.functions["has_cycle"].cases if _returns(c) == 1]
    assert cyclic
    names = {o.name for o in cyclic[0].objects}
    # a link back to an object of the case: the list runs into a cycle
    assert any(p.target in names for links in _links(cyclic[0].objects).values()
               for p in links)


def test_rewritten_links_are_predicted_as_pointers_to_named_objects(
        generated_unit: Generate) -> None:
    unit = generated_unit("insert.c", SINGLY)
    inserted = [c for c in unit.functions["insert_sorted"].cases
                if any(o.name == "ctgen_obj_n" for o in c.expected.objects)]
    assert inserted
    for case in inserted:  # n is linked in: its next points to a named object or NULL
        names = {o.name for o in case.objects}
        (after,) = [o for o in case.expected.objects if o.name == "ctgen_obj_n"]
        (link,) = _pointers(after.value)
        assert link.target is None or link.target in names
    removed = [c for c in unit.functions["remove_value"].cases if _returns(c) == 1]
    assert any(o.name.startswith("ctgen_obj_head") for c in removed
               for o in c.expected.objects)


def test_a_null_dereference_in_a_list_walk_is_a_finding(generated_unit: Generate) -> None:
    unit = generated_unit("after.c", SINGLY)
    assert unit.findings["value_after"] == [
        "undefined behaviour at after.c:64:13: NULL dereference of n->next"]
    (case,) = [c for c in unit.functions["value_after"].cases if c.finding]
    # the key is in the last node
    assert _links(case.objects) == {"ctgen_obj_n": [PointerValue(None)]}


def test_a_ring_with_a_sentinel_closes_on_its_end_item(generated_unit: Generate) -> None:
    unit = generated_unit("ring.c", RING)
    unit.assert_fully_covered()
    end = PointerValue("ctgen_obj_l", offset=16)  # &l->end
    for case in unit.functions["ring_insert"].cases:
        (l_object,) = [o for o in case.objects if o.name == "ctgen_obj_l"]
        assert l_object.declaration == "struct list @"
        # the precondition holds: the neighbours of the end item point back to it
        links = _links(case.objects)
        first, last = links["ctgen_obj_l"][1:3]
        assert end in (links.get(first.target, []) + [first]), links
        assert end in (links.get(last.target, []) + [last]), links
    lengths = {_returns(c) for c in unit.functions["ring_length"].cases}
    assert lengths and max(lengths) <= 2


def test_a_binary_tree_grows_where_the_key_goes(generated_unit: Generate) -> None:
    unit = generated_unit("tree.c", TREE)
    unit.assert_fully_covered()
    deepest = max(len(c.objects) for c in unit.functions["tree_insert"].cases)
    assert deepest >= 3  # a root, a child, and the node inserted below it
    names = {o.name for c in unit.functions["tree_lookup"].cases for o in c.objects}
    assert names >= {"ctgen_obj_t", "ctgen_obj_t_left"} or \
        names >= {"ctgen_obj_t", "ctgen_obj_t_right"}


def test_buffers_keep_their_array_of_elements(generated_unit: Generate) -> None:
    unit = generated_unit("buf.c", r"""#include <stdint.h>
struct cfg { int gain; int offset; };
int sum(const uint8_t *buf, int n) { int s = 0; for (int i = 0; i < n && i < 3; i++) s += buf[i]; return s; }
int scaled(const struct cfg *c, int x) { return c->gain > 2 ? x * c->gain + c->offset : x; }
""")
    unit.assert_fully_covered()
    for name in ("sum", "scaled"):
        declarations = {o.declaration for c in unit.functions[name].cases for o in c.objects}
        assert declarations and all(d.endswith("@[10]") for d in declarations), declarations


def test_lazily_built_cases_are_deterministic(generated_unit: Generate) -> None:
    text = SINGLY + TREE.split("\n", 1)[1]  # without its second #include
    first = generated_unit("again.c", text)
    second = generated_unit("again.c", text)
    assert first.functions == second.functions


def test_a_pool_indexed_as_an_array_keeps_its_elements(generated_unit: Generate) -> None:
    unit = generated_unit("pool.c", r"""#include <stddef.h>
struct node { int v; struct node *next; };

struct node *pool_init(struct node *pool, int n)
{
    if (n <= 0)
        return NULL;
    for (int i = 0; i < n - 1; i++)
        pool[i].next = &pool[i + 1];
    pool[n - 1].next = NULL;
    return pool;
}
""")
    unit.assert_fully_covered()
    declarations = {o.declaration for c in unit.functions["pool_init"].cases
                    for o in c.objects}
    assert declarations == {"struct node @[10]"}


def test_globals_and_stub_results_are_built_lazily(generated_unit: Generate) -> None:
    unit = generated_unit("glob.c", r"""#include <stddef.h>
struct node { int v; struct node *next; };
struct list { int count; struct node head; };
struct node *g_head;
struct list g_list;
struct node *next_free(void);

int pop_global(void)
{
    struct node *n = g_head;
    if (n == NULL)
        return -1;
    g_head = n->next;
    return n->v;
}

/* a ring closed by the head item inside the global */
int g_first(void)
{
    const struct node *n = g_list.head.next;
    if (n == NULL || n == &g_list.head)
        return -1;
    return n->v;
}

int take(void)
{
    struct node *n = next_free();
    if (n == NULL)
        return 0;
    return n->next != NULL ? 2 : 1;
}
""")
    unit.assert_fully_covered()
    popped = [c for c in unit.functions["pop_global"].cases if _returns(c) != -1]
    assert [o.name for o in popped[0].objects] == ["ctgen_obj_g_head"]
    heads = [g.value for c in unit.functions["g_first"].cases for g in c.globals]
    assert any(PointerValue("&g_list", offset=8) in _pointers(v) for v in heads)
    names = {o.name for c in unit.functions["take"].cases for o in c.objects}
    assert names == {"ctgen_obj_next_free_0", "ctgen_obj_next_free_0_next"}


SEGMENTS = r"""#include <stddef.h>
struct seg { struct seg *next; unsigned char n; unsigned char data[8]; };

/* the sum of each segment's first n data bytes; more than 8 bytes in all is too long */
int chain_sum(const struct seg *s)
{
    unsigned total = 0, count = 0;
    for (; s != NULL; s = s->next) {
        unsigned k;
        for (k = 0; k < s->n && k < 8u; k++)
            total += s->data[k];
        count += k;
    }
    if (count > 8u)
        return -1;
    return (int)total;
}
"""


def test_a_walk_ends_the_list_where_the_outcome_left_is_after_the_loop(
        generated_unit: Generate) -> None:
    """`count > 8` needs two segments; the path must end the list (a NULL link) when the
    outcome is past the loop, not grow it link after link as the model at hand has it
    (which spent the whole budget on one chain of ten segments before)."""
    unit = generated_unit("segments.c", SEGMENTS)
    unit.assert_fully_covered("chain_sum")
    too_long = [c for c in unit.functions["chain_sum"].cases if _returns(c) == -1]
    assert too_long and all(len(c.objects) >= 2 for c in too_long)
