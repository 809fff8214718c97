/* parse.c: strict number parsing (parse.h). strtod alone accepts "2abc" (as 2), "inf", "nan" and
 * overflow (as inf); a cast of a double to long is undefined outside the type's range. Here the
 * whole string must be the number, it must be finite, and it must lie in the caller's range. */
#include "base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int br_parse_double(const char *s, double lo, double hi, double *v)
{
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    char *end;
    errno = 0;
    const double x = strtod(s, &end);
    if (end == s) return -1;
    while (isspace((unsigned char)*end)) end++;
    if (*end || errno == ERANGE || !isfinite(x) || !(x >= lo && x <= hi)) return -1;
    *v = x;
    return 0;
}

int br_parse_long(const char *s, long lo, long hi, long *v)
{
    double x;
    /* 2^62: every whole double below it converts to long exactly */
    if (br_parse_double(s, -0x1p62, 0x1p62, &x) || x != floor(x)) return -1;
    const long n = (long)x;
    if (n < lo || n > hi) return -1;
    *v = n;
    return 0;
}

int br_arg_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *v)
{
    if (br_parse_double(s, lo, hi, v) == 0) return 0;
    fprintf(stderr, "bristle %s: %s needs a number in [%g, %g], got '%s'\n", cmd, opt, lo, hi, s ? s : "");
    return -1;
}

int br_arg_long(const char *cmd, const char *opt, const char *s, long lo, long hi, long *v)
{
    if (br_parse_long(s, lo, hi, v) == 0) return 0;
    fprintf(stderr, "bristle %s: %s needs a whole number in [%ld, %ld], got '%s'\n", cmd, opt, lo, hi, s ? s : "");
    return -1;
}

int br_portable_name(const char *s, size_t max)
{
    const size_t n = strlen(s);
    if (n == 0 || n >= max || !strcmp(s, ".") || !strcmp(s, "..")) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
    return 1;
}
