/* drivers.c - application code over a driver layer it does not define.
 *
 * Every extern function below is implemented elsewhere (a HAL, an EEPROM driver, an SPI
 * driver). pytest-ctgen stubs them: for each call it chooses what the driver returns and
 * writes, so that every branch of this file can be reached without the hardware. */
#include <stdint.h>

#define ADC_RAIL        4095
#define ADC_OVERRUN     0x01u
#define CFG_MAGIC       0xC0DEu
#define CFG_VERSION     3u
#define SPI_OK          0
#define SPI_BUSY        (-16)
#define SPI_RETRIES     3

struct config {
    uint16_t magic;
    uint8_t version;
    uint8_t gain;       /* 1 .. 8 */
    int16_t offset;     /* centi-units */
};

/* Set by the ADC interrupt: the driver owns it, so a driver call may change it. */
volatile uint8_t g_adc_status;
int16_t g_last_offset;

extern int16_t adc_sample(uint8_t channel);
extern int eeprom_read_config(uint16_t address, struct config *out);
extern int spi_transfer(uint8_t *buf, uint16_t len);
extern void spi_reset(void);

/* Two samples of one channel: 0 steady, 1 a step, 2 a step into the rail, -1 a negative
 * sample, -2 an overrun the driver flagged while sampling. */
int sample_step(uint8_t channel)
{
    int16_t first, second;

    g_adc_status = 0u;
    first = adc_sample(channel);
    second = adc_sample(channel);
    if (first < 0 || second < 0) {
        return -1;
    }
    if ((g_adc_status & ADC_OVERRUN) != 0u) {
        return -2;
    }
    if (second - first > 100) {
        return (second == ADC_RAIL) ? 2 : 1;
    }
    return 0;
}

/* Reads the configuration block: its gain, or -1 read error, -2 bad magic, -3 old
 * version, -4 gain out of range. Remembers the offset of a good block. */
int config_gain(uint16_t address)
{
    struct config cfg;

    if (eeprom_read_config(address, &cfg) != 0) {
        return -1;
    }
    if (cfg.magic != CFG_MAGIC) {
        return -2;
    }
    if (cfg.version < CFG_VERSION) {
        return -3;
    }
    if (cfg.gain == 0u || cfg.gain > 8u) {
        return -4;
    }
    g_last_offset = cfg.offset;
    return cfg.gain;
}

/* Sends a two-byte command and returns the reply byte; a busy bus is retried up to
 * SPI_RETRIES times, any other error resets the bus. -1 busy throughout, -2 error. */
int spi_command(uint8_t command, uint8_t argument)
{
    uint8_t frame[2];
    int attempt;
    int rc = SPI_BUSY;

    for (attempt = 0; attempt < SPI_RETRIES; attempt++) {
        frame[0] = command;
        frame[1] = argument;
        rc = spi_transfer(frame, 2u);
        if (rc != SPI_BUSY) {
            break;
        }
    }
    if (rc == SPI_BUSY) {
        return -1;
    }
    if (rc != SPI_OK) {
        spi_reset();
        return -2;
    }
    return frame[1];
}
