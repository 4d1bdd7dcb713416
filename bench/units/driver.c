/* A device driver behind an operations struct: optional operations are NULL. */
#include <stddef.h>

struct device;

struct device_ops {
    int (*open)(struct device *dev);
    int (*read)(struct device *dev, unsigned char *buf, int len);
    int (*write)(struct device *dev, const unsigned char *buf, int len);
    void (*close)(struct device *dev);
};

struct device {
    const struct device_ops *ops;
    int is_open;
    int errors;
};

#define E_NODEV (-19)
#define E_BUSY (-16)
#define E_NOSYS (-38)
#define E_IO (-5)

int device_open(struct device *dev)
{
    int rc;
    if (dev == NULL || dev->ops == NULL)
        return E_NODEV;
    if (dev->is_open)
        return E_BUSY;
    if (dev->ops->open != NULL) {
        rc = dev->ops->open(dev);
        if (rc != 0) {
            dev->errors++;
            return rc;
        }
    }
    dev->is_open = 1;
    return 0;
}

/* Reads exactly len bytes, in as many calls of ops->read as it takes. */
int device_read_all(struct device *dev, unsigned char *buf, int len)
{
    int done = 0;
    if (!dev->is_open)
        return E_NODEV;
    if (dev->ops->read == NULL)
        return E_NOSYS;
    while (done < len) {
        int n = dev->ops->read(dev, buf + done, len - done);
        if (n < 0) {
            dev->errors++;
            return E_IO;
        }
        if (n == 0)
            break;
        done += n > len - done ? len - done : n;
    }
    return done;
}

int device_write(struct device *dev, const unsigned char *buf, int len)
{
    if (!dev->is_open)
        return E_NODEV;
    if (dev->ops->write == NULL)
        return E_NOSYS;
    if (len <= 0)
        return 0;
    return dev->ops->write(dev, buf, len);
}

void device_close(struct device *dev)
{
    if (!dev->is_open)
        return;
    if (dev->ops->close)
        dev->ops->close(dev);
    dev->is_open = 0;
}

/* SEEDED BUG (missing NULL check): write is optional, and the NULL test here only
 * counts the error; the call is made anyway (a missing return). */
int device_flush(struct device *dev)
{
    static const unsigned char nothing[1] = {0};
    if (!dev->is_open)
        return E_NODEV;
    if (dev->ops->write == NULL)
        dev->errors++;
    return dev->ops->write(dev, nothing, 0);
}
