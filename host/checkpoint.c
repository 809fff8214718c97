/* checkpoint.c: checkpoint records (checkpoint.h) and the state of br_data in them. */
#include "checkpoint.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field.h"

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

#define IO(tag, p, n) br_ckpt_io(c, tag, (p), (size_t)(n) * sizeof *(p))

int br_data_checkpoint(const br_model *m, br_data *d, br_ckpt *c)
{
    const int nb = m->nbody, ns = m->nset, nf = 1 + m->nbody + m->nkframe;
    const int nl = m->nload > 0 ? m->nload : 1, nsp = m->nspring > 0 ? m->nspring : 1;
    const int nr = m->nrot > 0 ? m->nrot : 1;
    IO("t", &d->t, 1), IO("step", &d->step, 1);
    IO("x", d->x, 3 * nb), IO("q", d->q, 4 * nb), IO("v", d->v, 3 * nb), IO("w", d->w, 3 * nb);
    IO("f", d->f, 3 * nb), IO("tau", d->tau, 3 * nb), IO("fext", d->fext, 3 * nb), IO("text", d->text, 3 * nb);
    IO("frames", d->frames, nf), IO("fframes", d->fframes, nf), IO("vpred", d->vpred, 6 * nb);
    IO("acc", d->acc, 6 * nb);
    if (ns > 0) IO("res", d->res, ns), IO("E_upto", d->E_upto, 6 * ns), IO("Nset", d->Nset, ns);
    IO("load_val", d->load_val, nl), IO("spring_val", d->spring_val, nsp), IO("spring_ang", d->spring_angle, nsp);
    IO("rot_z", d->rot_z, nr), IO("rot_tau", d->rot_tau, nr), IO("rot_Eb", d->rot_Eb, nr);
    IO("rot_E", d->rot_E, nr), IO("rot_E_upto", d->rot_E_upto, nr);
    IO("en", &d->en, 1), IO("res_ref", &d->res_ref, 1), IO("p_drive", &d->p_drive, 1);
    IO("p_spr_loss", &d->p_spring_loss, 1);
    IO("h_prev", &d->h_prev, 1), IO("level", &d->level, 1), IO("err", &d->err, 1), IO("calm", &d->calm, 1), IO("substeps", &d->sub, 1);
    if (ns > 0) IO("set_vs", d->set_vs, ns);
    IO("wend_ok", &d->wend_ok, 1);
    if (ns > 0) IO("wend", d->wend, 18 * ns);
    if (d->ga) {
        const int n = d->ga->n;
        IO("ga_u", d->ga->u, n), IO("ga_v", d->ga->v, n), IO("ga_a", d->ga->a, n), IO("ga_a1", d->ga->a1, n);
        IO("g", d->g, n), IO("gext", d->gext, n), IO("gext_prev", d->gext_prev, n);
        IO("uprev", d->uprev, n), IO("vprev", d->vprev, n), IO("up", d->up, n), IO("vp", d->vp, n);
        IO("xnode", d->xnode, 3 * d->st->nnode);
    }
    if (d->nimp > 0)
        IO("imp_du", d->imp_du, 6 * d->nimp), IO("imp_dv", d->imp_dv, 6 * d->nimp),
            IO("imp_dm", d->imp_dm, 6 * d->nimp), IO("imp_E", d->imp_E, 36 * d->nimp);
    if (d->drv) {
        br_drive_data *v = d->drv;
        const int n = m->drive.nshaft, ng = m->drive.ngear > 0 ? m->drive.ngear : 1;
        const int nsr = m->drive.nsrc > 0 ? m->drive.nsrc : 1, ncl = m->drive.ncl > 0 ? m->drive.ncl : 1;
        IO("dv_w", v->w, n), IO("dv_alpha", v->alpha, n), IO("dv_lam", v->lam, ng), IO("dv_src", v->src_tau, nsr);
        IO("dv_cl_tau", v->cl_tau, ncl), IO("dv_cl_w", v->cl_w, ncl), IO("dv_cl_z", v->cl_z, ncl);
        IO("dv_cl_Eb", v->cl_Eb, ncl), IO("dv_cl_E", v->cl_E, ncl), IO("dv_cl_mode", v->cl_mode, ncl);
        IO("dv_alpha_max", v->alpha_max, n), IO("dv_cl_taumax", v->cl_tau_max, 3 * ncl);
        IO("dv_work", &v->work_in, 1), IO("dv_newton", &v->newton_max, 1), IO("dv_switch", &v->mode_switches, 1);
    }
    if (d->field && br_field_checkpoint(d->field, c)) return -1;
    return c->failed ? -1 : 0;
}
