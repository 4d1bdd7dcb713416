/* Recursion: mutual (even/odd), nested (McCarthy's 91, Ackermann) and tail (gcd). */

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
    if (n == 0)
        return 1;
    return is_odd(n - 1);
}

static int is_odd(unsigned n)
{
    if (n == 0)
        return 0;
    return is_even(n - 1);
}

/* -1 out of range, 2 an even n of 20 or more, 0 another even n, 1 an odd n. */
int parity_class(unsigned n)
{
    if (n > 24)
        return -1;
    if (is_even(n)) {
        if (n >= 20)
            return 2;
        return 0;
    }
    return 1;
}

static int mc91(int n)
{
    if (n > 100)
        return n - 10;
    return mc91(mc91(n + 11));
}

/* McCarthy's 91 over 90..110: 1 when it gives 91, 2 above 95. */
int check91(int n)
{
    if (n < 90 || n > 110)
        return -1;
    int r = mc91(n);
    if (r == 91)
        return 1;
    if (r > 95)
        return 2;
    return 0;
}

static unsigned gcd(unsigned a, unsigned b)
{
    if (b == 0)
        return a;
    return gcd(b, a % b);
}

/* 1 for a coprime pair, 2 for a common divisor above 50, 0 otherwise. */
int common_divisor(unsigned a, unsigned b)
{
    if (a == 0 || b == 0 || a > 1000 || b > 1000)
        return -1;
    unsigned g = gcd(a, b);
    if (g == 1)
        return 1;
    if (g > 50)
        return 2;
    return 0;
}

static int ack(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

/* Ackermann's function for m <= 2, n <= 2: 7 only at (2, 2). */
int ack_small(int m, int n)
{
    if (m < 0 || m > 2 || n < 0 || n > 2)
        return -1;
    int r = ack(m, n);
    if (r == 7)
        return 1;
    if (r > 4)
        return 2;
    return 0;
}
