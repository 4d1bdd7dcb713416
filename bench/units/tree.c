/* A binary search tree of keys: insert (no duplicates), lookup, height. */
#include <stddef.h>

struct tnode {
    int key;
    struct tnode *left;
    struct tnode *right;
};

/* Links n into the tree at *root; returns 0, or -1 when the key is there already. */
int tree_insert(struct tnode **root, struct tnode *n)
{
    struct tnode **link = root;
    while (*link != NULL) {
        if (n->key == (*link)->key)
            return -1;
        link = n->key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
    n->left = NULL;
    n->right = NULL;
    *link = n;
    return 0;
}

struct tnode *tree_lookup(struct tnode *t, int key)
{
    while (t != NULL && t->key != key)
        t = key < t->key ? t->left : t->right;
    return t;
}

int tree_height(const struct tnode *t)
{
    int l, r;
    if (t == NULL)
        return 0;
    l = tree_height(t->left);
    r = tree_height(t->right);
    return 1 + (l > r ? l : r);
}
