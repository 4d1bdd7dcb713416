/* A singly linked list of keyed nodes: insert in key order, remove by key, find. */
#include <stddef.h>

struct node {
    struct node *next;
    int key;
    int value;
};

/* Inserts n keeping the list ordered by key; returns the new head. */
struct node *slist_insert_sorted(struct node *head, struct node *n)
{
    struct node **link = &head;
    while (*link != NULL && (*link)->key < n->key)
        link = &(*link)->next;
    n->next = *link;
    *link = n;
    return head;
}

/* Unlinks the first node with `key`; returns it, or NULL. */
struct node *slist_remove(struct node **head, int key)
{
    struct node *prev = NULL;
    struct node *cur = *head;
    while (cur != NULL) {
        if (cur->key == key) {
            if (prev == NULL)
                *head = cur->next;
            else
                prev->next = cur->next;
            cur->next = NULL;
            return cur;
        }
        prev = cur;
        cur = cur->next;
    }
    return NULL;
}

struct node *slist_find(struct node *head, int key)
{
    for (struct node *n = head; n != NULL; n = n->next)
        if (n->key == key)
            return n;
    return NULL;
}

int slist_length(const struct node *head)
{
    int len = 0;
    while (head != NULL) {
        len++;
        head = head->next;
    }
    return len;
}
