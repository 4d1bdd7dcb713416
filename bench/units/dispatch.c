/* An event dispatcher over a table of handlers, indexed by the event id. */
#include <stddef.h>

enum event_id { EV_NONE, EV_TIMER, EV_RX, EV_TX, EV_ERROR, EV_COUNT };

struct event {
    enum event_id id;
    int arg;
};

typedef int (*handler_fn)(const struct event *ev, void *context);

struct dispatcher {
    handler_fn handlers[EV_COUNT];
    void *context;
    unsigned dropped;
    unsigned handled;
};

void dispatcher_init(struct dispatcher *d, void *context)
{
    for (int i = 0; i < EV_COUNT; i++)
        d->handlers[i] = NULL;
    d->context = context;
    d->dropped = 0;
    d->handled = 0;
}

int dispatcher_register(struct dispatcher *d, enum event_id id, handler_fn fn)
{
    if (id <= EV_NONE || id >= EV_COUNT)
        return -1;
    if (d->handlers[id] != NULL)
        return -2; /* already taken */
    d->handlers[id] = fn;
    return 0;
}

/* Calls the handler of ev->id; a negative result of the handler is an error. */
int dispatch(struct dispatcher *d, const struct event *ev)
{
    handler_fn fn;
    int rc;
    if ((unsigned)ev->id >= EV_COUNT) {
        d->dropped++;
        return -1;
    }
    fn = d->handlers[ev->id];
    if (fn == NULL) {
        d->dropped++;
        return 0;
    }
    rc = fn(ev, d->context);
    if (rc < 0)
        return rc;
    d->handled++;
    return 1;
}

/* A fixed table of the unit's own handlers. */
static int timer_ticks;
static int rx_bytes;

static int on_timer(const struct event *ev, void *context)
{
    (void)context;
    timer_ticks += ev->arg;
    return 0;
}

static int on_rx(const struct event *ev, void *context)
{
    (void)context;
    if (ev->arg < 0)
        return -1;
    rx_bytes += ev->arg;
    return ev->arg;
}

static const handler_fn fixed_table[EV_COUNT] = {
    [EV_TIMER] = on_timer,
    [EV_RX] = on_rx,
};

int dispatch_fixed(int id, int arg)
{
    struct event ev;
    if (id < 0 || id >= EV_COUNT || fixed_table[id] == NULL)
        return -100;
    ev.id = (enum event_id)id;
    ev.arg = arg;
    return fixed_table[id](&ev, NULL);
}
