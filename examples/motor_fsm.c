/* motor_fsm.c - start/stop controller of a fan motor: a switch-based state machine
 * over a global enum state, driven by one event per call, ramping the speed set
 * point up and down in fixed steps.  Corrupt states fall back to MS_FAULT. */
#include <stdint.h>
#include <stdbool.h>

typedef enum { MS_OFF = 0, MS_STARTING, MS_RUNNING, MS_STOPPING, MS_FAULT } motor_state_t;
typedef enum { EV_NONE = 0, EV_START, EV_STOP, EV_TICK, EV_FAULT, EV_RESET } motor_event_t;

#define RAMP_STEP      250u
#define RAMP_TICKS_MAX 8u
#define SPEED_NOMINAL  1500u

motor_state_t g_motor_state = MS_OFF;
uint16_t g_motor_speed;         /* rpm set point */
uint8_t g_ramp_ticks;
uint8_t g_fault_count;

motor_state_t motor_step(motor_event_t ev)
{
    if (ev == EV_FAULT) {
        g_motor_state = MS_FAULT;
        g_motor_speed = 0u;
        if (g_fault_count < UINT8_MAX) {
            g_fault_count++;
        }
        return g_motor_state;
    }
    switch (g_motor_state) {
    case MS_OFF:
        if (ev == EV_START) {
            g_motor_state = MS_STARTING;
            g_ramp_ticks = 0u;
        }
        break;
    case MS_STARTING:
        if (ev == EV_STOP) {
            g_motor_state = MS_STOPPING;
        } else if (ev == EV_TICK) {
            g_motor_speed += RAMP_STEP;
            if (++g_ramp_ticks >= RAMP_TICKS_MAX || g_motor_speed >= SPEED_NOMINAL) {
                g_motor_speed = SPEED_NOMINAL;
                g_motor_state = MS_RUNNING;
            }
        }
        break;
    case MS_RUNNING:
        if (ev != EV_STOP) {
            break;
        }
        g_motor_state = MS_STOPPING;
        /* fall through - the first ramp-down step happens on the same call */
    case MS_STOPPING:
        if (ev == EV_START) {
            g_motor_state = MS_STARTING;
            g_ramp_ticks = 0u;
            break;
        }
        if (g_motor_speed > RAMP_STEP) {
            g_motor_speed -= RAMP_STEP;
        } else {
            g_motor_speed = 0u;
            g_motor_state = MS_OFF;
        }
        break;
    case MS_FAULT:
        if (ev == EV_RESET && g_motor_speed == 0u) {
            g_motor_state = MS_OFF;
        }
        break;
    default:                    /* corrupt state value */
        g_motor_state = MS_FAULT;
        g_motor_speed = 0u;
        break;
    }
    return g_motor_state;
}

/* Whether ev means anything in the current state.  No default: every enumerator
 * has a case, so the implicit default edge needs an out-of-range ev (e.g. 6). */
bool motor_event_allowed(motor_event_t ev)
{
    bool ok = false;

    switch (ev) {
    case EV_NONE:
    case EV_TICK:
    case EV_FAULT:
        ok = true;
        break;
    case EV_START:
        ok = g_motor_state == MS_OFF || g_motor_state == MS_STOPPING;
        break;
    case EV_STOP:
        ok = g_motor_state != MS_OFF && g_motor_state != MS_FAULT;
        break;
    case EV_RESET:
        ok = g_motor_state == MS_FAULT;
        break;
    }
    return ok;
}

/* Tick until the set point reaches target (or 20 ticks); returns ticks used. */
uint8_t motor_ticks_to_speed(uint16_t target)
{
    uint8_t n = 0u;

    do {
        (void)motor_step(EV_TICK);
        n++;
    } while (g_motor_speed < target && n < 20u);
    return n;
}
