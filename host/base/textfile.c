/* textfile.c: br_read_text (textfile.h) */
#include "base/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *br_read_text(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s:1: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(fp);
    if (!buf) {
        snprintf(err, errlen, "%s:1: out of memory reading the file", path);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
