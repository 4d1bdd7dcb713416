/* Firmware tasks that never return: for (;;) and while (1) loops around driver calls. */

int adc_read(int channel);
void pwm_set(int duty);
void alarm_raise(int code);
int queue_receive(int *msg);

/* The fan: full speed above 800, half above 500, off otherwise; an alarm on the third
 * hot reading in a row. */
void fan_task(void)
{
    int hot = 0;
    for (;;) {
        int t = adc_read(0);
        if (t > 800) {
            pwm_set(100);
            if (++hot == 3)
                alarm_raise(1);
        } else if (t > 500) {
            pwm_set(50);
            hot = 0;
        } else {
            pwm_set(0);
            hot = 0;
        }
    }
}

enum mode { IDLE, ARMED, RUNNING };

/* A command task: idle -> armed (1) -> running (2); 0 disarms, and stopping a running
 * machine raises alarm 2. */
void command_task(void)
{
    enum mode mode = IDLE;
    int msg;
    while (1) {
        if (!queue_receive(&msg))
            continue;
        switch (mode) {
        case IDLE:
            if (msg == 1)
                mode = ARMED;
            break;
        case ARMED:
            if (msg == 2)
                mode = RUNNING;
            else if (msg == 0)
                mode = IDLE;
            break;
        case RUNNING:
            if (msg == 0) {
                mode = IDLE;
                alarm_raise(2);
            }
            break;
        }
    }
}
