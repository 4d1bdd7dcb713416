/* A fixed-size block pool over malloc: blocks are taken from and given back to a
 * free list threaded through the blocks themselves. */
#include <stddef.h>
#include <stdlib.h>

struct block {
    struct block *next;
    int payload[4];
};

struct pool {
    struct block *free_list;
    struct block *blocks;
    int capacity;
    int in_use;
};

int pool_init(struct pool *p, int capacity)
{
    if (capacity <= 0 || capacity > 16)
        return -1;
    p->blocks = malloc((size_t)capacity * sizeof *p->blocks);
    if (p->blocks == NULL)
        return -2;
    p->free_list = NULL;
    for (int i = capacity - 1; i >= 0; i--) {
        p->blocks[i].next = p->free_list;
        p->free_list = &p->blocks[i];
    }
    p->capacity = capacity;
    p->in_use = 0;
    return 0;
}

int *pool_get(struct pool *p)
{
    struct block *b = p->free_list;
    if (b == NULL)
        return NULL;
    p->free_list = b->next;
    p->in_use++;
    return b->payload;
}

void pool_put(struct pool *p, int *payload)
{
    struct block *b;
    if (payload == NULL)
        return;
    b = (struct block *)((char *)payload - offsetof(struct block, payload));
    b->next = p->free_list;
    p->free_list = b;
    p->in_use--;
}

void pool_destroy(struct pool *p)
{
    free(p->blocks);
    p->blocks = NULL;
    p->free_list = NULL;
    p->capacity = 0;
    p->in_use = 0;
}

/* Takes up to `want` blocks, numbering them, and gives the first one back. */
int pool_exercise(int capacity, int want)
{
    struct pool p;
    int *first = NULL;
    int got = 0;
    if (pool_init(&p, capacity) != 0)
        return -1;
    while (got < want) {
        int *x = pool_get(&p);
        if (x == NULL)
            break;
        x[0] = got;
        if (first == NULL)
            first = x;
        got++;
    }
    if (first != NULL)
        pool_put(&p, first);
    pool_destroy(&p);
    return got;
}

/* SEEDED BUG (use after free): on the error path the pool is destroyed before the
 * block's value is read for the error code. */
int pool_store(int capacity, int value)
{
    struct pool p;
    int *x;
    int v;
    if (pool_init(&p, capacity) != 0)
        return -1;
    x = pool_get(&p);
    x[0] = value;
    if (value < 0) {
        pool_destroy(&p);
        return x[0]; /* reads the freed block */
    }
    v = x[0] * 2;
    pool_destroy(&p);
    return v;
}
