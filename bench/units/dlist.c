/* A doubly linked list with a sentinel end marker, ordered by item value, in the style
 * of an RTOS kernel's ready and delayed lists. */
#include <stddef.h>

struct list;

struct list_item {
    unsigned value;
    struct list_item *next;
    struct list_item *prev;
    void *owner;
    struct list *container;
};

struct list {
    unsigned count;
    struct list_item *index;
    struct list_item end; /* the sentinel: value is the largest, links close the ring */
};

void list_init(struct list *l)
{
    l->index = &l->end;
    l->end.value = 0xFFFFFFFFu;
    l->end.next = &l->end;
    l->end.prev = &l->end;
    l->end.container = NULL;
    l->count = 0;
}

/* Inserts `item` after the items whose value is not larger (so items of equal value
 * stay in insertion order). */
void list_insert(struct list *l, struct list_item *item)
{
    struct list_item *it;
    if (item->value == 0xFFFFFFFFu) {
        it = l->end.prev;
    } else {
        for (it = &l->end; it->next->value <= item->value; it = it->next) {
            /* walk */
        }
    }
    item->next = it->next;
    item->next->prev = item;
    item->prev = it;
    it->next = item;
    item->container = l;
    l->count++;
}

/* Inserts at the end, just before the sentinel. */
void list_insert_end(struct list *l, struct list_item *item)
{
    struct list_item *last = l->end.prev;
    item->next = &l->end;
    item->prev = last;
    last->next = item;
    l->end.prev = item;
    item->container = l;
    l->count++;
}

/* Unlinks `item` from its list; returns how many items remain. */
unsigned list_remove(struct list_item *item)
{
    struct list *l = item->container;
    item->next->prev = item->prev;
    item->prev->next = item->next;
    if (l->index == item)
        l->index = item->prev;
    item->container = NULL;
    l->count--;
    return l->count;
}

/* The first item whose owner is `owner`, or NULL. */
struct list_item *list_find_owner(struct list *l, const void *owner)
{
    for (struct list_item *it = l->end.next; it != &l->end; it = it->next)
        if (it->owner == owner)
            return it;
    return NULL;
}
