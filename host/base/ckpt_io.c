/* ckpt_io.c: checkpoint records (ckpt_io.h): files and the in-memory snapshot */
#include "base/ckpt_io.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 2: bristle2 keeps nine states a point and the loop buffer seven values a sample (2026-11-26) */
/* 4: the substeps' level, error ratio, previous step and counts (2026-11-29); 5: bristle2's last
 * three states are its frame's velocity, no longer the previous step's Vt (2026-11-29) */
static const char MAGIC[] = "BRISTLE-CHECKPOINT 5\n";

static int ck_fail(br_ckpt *c, const char *fmt, ...)
{
    if (!c->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, sizeof c->err, fmt, ap);
        va_end(ap);
    }
    c->failed = 1;
    return -1;
}

void br_ckpt_mem(br_ckpt *c, int writing)
{
    c->inmem = 1, c->writing = writing, c->pos = 0, c->failed = 0, c->fp = NULL;
}

void br_ckpt_mem_free(br_ckpt *c)
{
    free(c->mem);
    c->mem = NULL, c->cap = c->pos = 0;
}

/* memory mode of br_ckpt_io: the bytes alone, in the order written */
static int ck_mem_io(br_ckpt *c, void *p, size_t bytes)
{
    if (c->writing) {
        if (c->pos + bytes > c->cap) {
            const size_t cap = 2 * (c->pos + bytes) + 256;
            unsigned char *m = realloc(c->mem, cap);
            if (!m) return ck_fail(c, "out of memory for the step's snapshot");
            c->mem = m, c->cap = cap;
        }
        if (bytes) memcpy(c->mem + c->pos, p, bytes);
    } else {
        if (c->pos + bytes > c->cap) return ck_fail(c, "the step's snapshot ends early");
        if (bytes) memcpy(p, c->mem + c->pos, bytes);
    }
    c->pos += bytes;
    return 0;
}

int br_ckpt_io(br_ckpt *c, const char *tag, void *p, size_t bytes)
{
    if (c->failed) return -1;
    if (c->inmem) return ck_mem_io(c, p, bytes);
    char t[16] = {0};
    strncpy(t, tag, sizeof t - 1);
    uint64_t n = bytes;
    if (c->writing) {
        if (fwrite(t, sizeof t, 1, c->fp) != 1 || fwrite(&n, sizeof n, 1, c->fp) != 1 ||
            (bytes && fwrite(p, bytes, 1, c->fp) != 1))
            return ck_fail(c, "cannot write the checkpoint");
        return 0;
    }
    char rt[16];
    uint64_t rn;
    if (fread(rt, sizeof rt, 1, c->fp) != 1 || fread(&rn, sizeof rn, 1, c->fp) != 1)
        return ck_fail(c, "the checkpoint ends early (at '%s')", t);
    if (memcmp(rt, t, sizeof t) || rn != n)
        return ck_fail(c, "the checkpoint holds '%.15s' (%llu bytes) where '%s' (%llu bytes) belongs", rt,
                       (unsigned long long)rn, t, (unsigned long long)n);
    if (bytes && fread(p, bytes, 1, c->fp) != 1) return ck_fail(c, "the checkpoint ends early (in '%s')", t);
    return 0;
}

uint64_t br_ckpt_hash(const char *text, size_t len, const char *const *sets, int nsets)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    for (int k = 0; k < nsets; k++) {
        h = (h ^ 0xff) * 1099511628211ull; /* a separator no text byte of a --set holds */
        for (const char *s = sets[k]; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

int br_ckpt_begin_write(br_ckpt *c, const char *path, uint64_t hash)
{
    memset(c, 0, sizeof *c);
    c->writing = 1;
    char tmp[1400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    c->fp = fopen(tmp, "wb");
    if (!c->fp) return ck_fail(c, "cannot create %s", tmp);
    if (fwrite(MAGIC, sizeof MAGIC - 1, 1, c->fp) != 1 || fwrite(&hash, sizeof hash, 1, c->fp) != 1)
        return ck_fail(c, "cannot write %s", tmp);
    return 0;
}

int br_ckpt_end_write(br_ckpt *c, const char *path)
{
    char tmp[1400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    br_ckpt_io(c, "end", NULL, 0);
    if (c->fp) {
        if (!c->failed && (fflush(c->fp) || fsync(fileno(c->fp)))) ck_fail(c, "cannot write %s", tmp);
        if (fclose(c->fp)) ck_fail(c, "cannot write %s", tmp);
        c->fp = NULL;
    }
    if (!c->failed && rename(tmp, path)) ck_fail(c, "cannot rename %s", tmp);
    if (c->failed) unlink(tmp);
    return c->failed ? -1 : 0;
}

int br_ckpt_begin_read(br_ckpt *c, const char *path, uint64_t hash)
{
    memset(c, 0, sizeof *c);
    c->fp = fopen(path, "rb");
    if (!c->fp) return ck_fail(c, "no checkpoint %s", path);
    char magic[sizeof MAGIC - 1];
    uint64_t h;
    if (fread(magic, sizeof magic, 1, c->fp) != 1 || memcmp(magic, MAGIC, sizeof magic))
        return ck_fail(c, "%s is not a Bristle checkpoint of this version (5)", path);
    if (fread(&h, sizeof h, 1, c->fp) != 1 || h != hash)
        return ck_fail(c, "%s was written by another scenario (or other --set values)", path);
    return 0;
}

int br_ckpt_end_read(br_ckpt *c)
{
    br_ckpt_io(c, "end", NULL, 0);
    if (c->fp) fclose(c->fp), c->fp = NULL;
    return c->failed ? -1 : 0;
}
