/* text.c - command-line style text handling on top of the C library.
 *
 * The string and ctype functions are executed with their real meaning while cases are
 * generated and are the C library's own when the cases run; exit and abort end a case,
 * and the case records how. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ctgen.h"

#define NAME_MAX_LEN 8

/* Copies a name and upper-cases it: its length, or -1 empty, -2 too long, -3 a
 * character that is not a letter, digit or underscore. */
int normalize_name(const char *in, char out[NAME_MAX_LEN + 1])
{
    size_t n = strlen(in);
    size_t i;

    if (n == 0u) {
        return -1;
    }
    if (n > NAME_MAX_LEN) {
        return -2;
    }
    strcpy(out, in);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)out[i];
        if (!isalnum(c) && c != '_') {
            return -3;
        }
        out[i] = (char)toupper(c);
    }
    return (int)n;
}

/* Classifies a character: 1 digit, 2 upper-case, 3 lower-case, 4 space, 5 punctuation,
 * 0 anything else. */
int char_class(int c)
{
    /* a character or EOF, as for the <ctype.h> functions it calls: without this,
     * pytest-ctgen finds the undefined isdigit(256) */
    __rtt_precondition(c >= -1 && c <= 255);
    if (isdigit(c)) {
        return 1;
    }
    if (isupper(c)) {
        return 2;
    }
    if (islower(c)) {
        return 3;
    }
    if (isspace(c)) {
        return 4;
    }
    if (ispunct(c)) {
        return 5;
    }
    return 0;
}

/* Takes the first `width` characters of a field, padded with NULs: 1 when the field was
 * cut, 0 when it fit. */
int take_field(char dst[4], const char *src, size_t width)
{
    if (width > 4u) {
        width = 4u;
    }
    strncpy(dst, src, width);
    return strlen(src) > width ? 1 : 0;
}

/* A fatal configuration check as start-up code writes it: a wrong mode ends the program. */
int checked_mode(int mode)
{
    if (mode < 0) {
        abort();
    }
    if (mode > 3) {
        exit(2);
    }
    return mode * 10;
}
