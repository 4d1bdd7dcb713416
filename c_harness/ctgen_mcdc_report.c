/*
 * ctgen_mcdc_report.c - MC/DC per function from the evaluations an instrumented run
 * recorded (pytest-ctgen): the figure `pytest --ctgen` reports (coverage/mcdc.py), computed
 * the same way in C for an export's `make mcdc`.
 *
 *     ctgen_mcdc_report DECISIONS RECORDS
 *
 * DECISIONS (written with the export) lists the unit's functions and decisions:
 *     F function                          a function the unit defines, in order
 *     N function reason...                its decisions are not measured (not instrumented)
 *     D id function conditions line column tree...
 *                                         a decision; its tree in prefix notation over
 *                                         "&" "|" "!" and condition numbers
 *     C id k line column text...          condition k of decision id
 * RECORDS is what ctgen_mcdc.c wrote: "tag decision evaluated values outcome" per line.
 *
 * A condition is shown when two evaluations of its decision form an independence pair:
 * the condition evaluated in both, with different values, the outcomes different, and
 * every other condition evaluated in both with the same value (unique-cause), or else
 * with different values only where it is masked in both (masking; the condition itself
 * not masked in either). A condition is masked when an operator on its way to the outcome
 * has as its other operand the value that decides it alone (false for &&, true for ||).
 * Prints per function its decisions, the conditions shown of all and the percentage
 * ("-" without a decision of two or more conditions), the conditions without a pair,
 * then the total. Exit status 0, or 2 when a file cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTGEN_MAX_CONDITIONS 64

struct node {
    char op; /* 'c' (a condition), '!', '&', '|' */
    int condition;
    int left, right;
};

struct evaluation {
    unsigned long long evaluated, values;
    int outcome;
};

struct decision {
    int id, function, conditions, line, column;
    struct node *nodes;
    int root;
    char **texts; /* each condition's "line:column text" */
    struct evaluation *seen;
    int nseen, capacity;
};

static char **functions;
static char **reasons; /* why a function is not measured, or NULL */
static int nfunctions;
static struct decision *decisions;
static int ndecisions;

static void *grow(void *array, size_t size) {
    void *p = realloc(array, size);
    if (!p) {
        fputs("ctgen_mcdc_report: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static char *copy(const char *text) {
    char *p = grow(NULL, strlen(text) + 1);
    strcpy(p, text);
    return p;
}

static int function_index(const char *name) {
    for (int i = 0; i < nfunctions; i++) {
        if (strcmp(functions[i], name) == 0) {
            return i;
        }
    }
    functions = grow(functions, sizeof *functions * (size_t)(nfunctions + 1));
    reasons = grow(reasons, sizeof *reasons * (size_t)(nfunctions + 1));
    functions[nfunctions] = copy(name);
    reasons[nfunctions] = NULL;
    return nfunctions++;
}

static struct decision *decision_by_id(int id) {
    for (int i = 0; i < ndecisions; i++) {
        if (decisions[i].id == id) {
            return &decisions[i];
        }
    }
    return NULL;
}

/* The next blank-separated token of `*rest` (which moves past it), or NULL. */
static char *next_token(char **rest) {
    char *p = *rest + strspn(*rest, " \t\n");
    if (!*p) {
        return NULL;
    }
    char *end = p + strcspn(p, " \t\n");
    *rest = *end ? end + 1 : end;
    *end = 0;
    return p;
}

/* Parse a prefix tree from the tokens after `*rest`; the index of its node, or -1. */
static int parse_tree(struct decision *d, int *count, char **rest) {
    char *token = next_token(rest);
    if (!token) {
        return -1;
    }
    int at = (*count)++;
    d->nodes = grow(d->nodes, sizeof *d->nodes * (size_t)*count);
    struct node n = {'c', -1, -1, -1};
    if (strcmp(token, "!") == 0) {
        n.op = '!';
        n.left = parse_tree(d, count, rest);
    } else if (strcmp(token, "&") == 0 || strcmp(token, "|") == 0) {
        n.op = token[0];
        n.left = parse_tree(d, count, rest);
        n.right = parse_tree(d, count, rest);
    } else {
        n.condition = atoi(token);
    }
    d->nodes[at] = n;
    return at;
}

static void read_decision(char *line) {
    char *rest = line + 2; /* after "D " */
    char *fields[5];
    for (int i = 0; i < 5; i++) {
        fields[i] = next_token(&rest);
        if (!fields[i]) {
            return;
        }
    }
    decisions = grow(decisions, sizeof *decisions * (size_t)(ndecisions + 1));
    struct decision *d = &decisions[ndecisions++];
    memset(d, 0, sizeof *d);
    d->id = atoi(fields[0]);
    d->function = function_index(fields[1]);
    d->conditions = atoi(fields[2]);
    if (d->conditions > CTGEN_MAX_CONDITIONS) {
        d->conditions = CTGEN_MAX_CONDITIONS;
    }
    d->line = atoi(fields[3]);
    d->column = atoi(fields[4]);
    int count = 0;
    d->root = parse_tree(d, &count, &rest);
    d->texts = grow(NULL, sizeof *d->texts * (size_t)(d->conditions + 1));
    for (int k = 0; k < d->conditions; k++) {
        d->texts[k] = copy("?");
    }
}

static void read_condition(const char *line) {
    int id, k, cline, column, used = 0;
    if (sscanf(line, "C %d %d %d %d %n", &id, &k, &cline, &column, &used) < 4 || !used) {
        return;
    }
    struct decision *d = decision_by_id(id);
    if (!d || k < 0 || k >= d->conditions) {
        return;
    }
    char text[4200];
    snprintf(text, sizeof text, "%d:%d %s", cline, column, line + used);
    text[strcspn(text, "\n")] = 0;
    free(d->texts[k]);
    d->texts[k] = copy(text);
}

static int read_decisions(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 0;
    }
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'F' && line[1] == ' ') {
            line[strcspn(line, "\n")] = 0;
            function_index(line + 2);
        } else if (line[0] == 'N' && line[1] == ' ') {
            line[strcspn(line, "\n")] = 0;
            char *reason = strchr(line + 2, ' ');
            if (reason) {
                *reason++ = 0;
                reasons[function_index(line + 2)] = copy(reason);
            }
        } else if (line[0] == 'D' && line[1] == ' ') {
            read_decision(line);
        } else if (line[0] == 'C' && line[1] == ' ') {
            read_condition(line);
        }
    }
    fclose(f);
    return 1;
}

static void add_evaluation(struct decision *d, struct evaluation e) {
    for (int i = 0; i < d->nseen; i++) {
        struct evaluation *s = &d->seen[i];
        if (s->evaluated == e.evaluated && s->values == e.values && s->outcome == e.outcome) {
            return;
        }
    }
    if (d->nseen == d->capacity) {
        d->capacity = d->capacity ? 2 * d->capacity : 16;
        d->seen = grow(d->seen, sizeof *d->seen * (size_t)d->capacity);
    }
    d->seen[d->nseen++] = e;
}

static int read_records(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 0;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int tag, id, outcome;
        unsigned long long evaluated, values;
        if (sscanf(line, "%d %d %llx %llx %d", &tag, &id, &evaluated, &values, &outcome) != 5) {
            continue; /* a record a killed case left half written */
        }
        struct decision *d = decision_by_id(id);
        if (!d) {
            continue;
        }
        unsigned long long mask = d->conditions >= 64 ? ~0ULL : (1ULL << d->conditions) - 1;
        struct evaluation e = {evaluated & mask, values & evaluated & mask, outcome == 1};
        add_evaluation(d, e);
    }
    fclose(f);
    return 1;
}

/* The value of a subtree in an evaluation: 1, 0, or -1 (not evaluated). */
static int value(const struct decision *d, int at, const struct evaluation *e) {
    const struct node *n = &d->nodes[at];
    if (n->op == 'c') {
        if (n->condition < 0 || !(e->evaluated >> n->condition & 1)) {
            return -1;
        }
        return (int)(e->values >> n->condition & 1);
    }
    int left = n->left < 0 ? -1 : value(d, n->left, e);
    if (n->op == '!') {
        return left < 0 ? -1 : !left;
    }
    if (left < 0) {
        return -1;
    }
    if (n->op == '&') {
        return left ? (n->right < 0 ? -1 : value(d, n->right, e)) : 0;
    }
    return left ? 1 : (n->right < 0 ? -1 : value(d, n->right, e));
}

static int holds(const struct decision *d, int at, int k) {
    const struct node *n = &d->nodes[at];
    if (n->op == 'c') {
        return n->condition == k;
    }
    return (n->left >= 0 && holds(d, n->left, k)) || (n->right >= 0 && holds(d, n->right, k));
}

/* Whether condition k is masked in `e`: an operator on its way to the root has, as its
 * other operand, the value that decides it alone. */
static int masked(const struct decision *d, int k, const struct evaluation *e) {
    int at = d->root;
    while (at >= 0 && d->nodes[at].op != 'c') {
        const struct node *n = &d->nodes[at];
        if (n->op == '!') {
            at = n->left;
            continue;
        }
        int mine = holds(d, n->left, k) ? n->left : n->right;
        int other = mine == n->left ? n->right : n->left;
        int v = other < 0 ? -1 : value(d, other, e);
        if (v >= 0 && v == (n->op == '|')) {
            return 1;
        }
        at = mine;
    }
    return 0;
}

static int bit(const struct evaluation *e, int j) {
    return e->evaluated >> j & 1 ? (int)(e->values >> j & 1) : -1;
}

/* 2: a unique-cause pair shows condition k, 1: only a masking pair, 0: none. */
static int shown(const struct decision *d, int k) {
    int found = 0;
    for (int i = 0; i < d->nseen; i++) {
        for (int m = 0; m < d->nseen; m++) {
            const struct evaluation *a = &d->seen[i], *b = &d->seen[m];
            if (bit(a, k) != 0 || bit(b, k) != 1 || a->outcome == b->outcome) {
                continue;
            }
            int unique = 1, masking = !masked(d, k, a) && !masked(d, k, b);
            for (int j = 0; j < d->conditions; j++) {
                int x = bit(a, j), y = bit(b, j);
                if (j == k || x < 0 || y < 0 || x == y) {
                    continue;
                }
                unique = 0;
                if (!(masked(d, j, a) && masked(d, j, b))) {
                    masking = 0;
                }
            }
            if (unique) {
                return 2;
            }
            if (masking) {
                found = 1;
            }
        }
    }
    return found;
}

static void print_row(const char *name, int count, int covered, int total, int by_masking) {
    char figure[32] = "-", conditions[32];
    if (total) {
        snprintf(figure, sizeof figure, "%.1f%%", 100.0 * covered / total);
    }
    snprintf(conditions, sizeof conditions, "%d/%d", covered, total);
    printf("%-24s %9d %13s %7s", name, count, conditions, figure);
    if (by_masking) {
        printf("  (%d by masking)", by_masking);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: ctgen_mcdc_report DECISIONS RECORDS\n", stderr);
        return 2;
    }
    if (!read_decisions(argv[1]) || !read_records(argv[2])) {
        return 2;
    }
    printf("%-24s %9s %13s %7s\n", "function", "decisions", "conditions", "MC/DC");
    int all_decisions = 0, all_covered = 0, all_total = 0;
    for (int f = 0; f < nfunctions; f++) {
        int count = 0, covered = 0, total = 0, by_masking = 0;
        for (int i = 0; i < ndecisions; i++) {
            const struct decision *d = &decisions[i];
            if (d->function != f) {
                continue;
            }
            count++;
            for (int k = 0; k < d->conditions; k++) {
                int form = shown(d, k);
                total++;
                covered += form > 0;
                by_masking += form == 1;
            }
        }
        print_row(functions[f], count, covered, total, by_masking);
        if (reasons[f]) {
            printf("    not measured: %s\n", reasons[f]);
        }
        for (int i = 0; i < ndecisions; i++) {
            const struct decision *d = &decisions[i];
            for (int k = 0; d->function == f && k < d->conditions; k++) {
                if (!shown(d, k)) {
                    printf("    no pair for %s\n", d->texts[k]);
                }
            }
        }
        all_decisions += count;
        all_covered += covered;
        all_total += total;
    }
    print_row("TOTAL", all_decisions, all_covered, all_total, 0);
    return 0;
}
