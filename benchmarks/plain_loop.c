/* plain_loop.c: the plain single-loop peer of the field step (see plain_loop.h). */
#include "plain_loop.h"

#include <stdlib.h>

#include "field/field_internal.h" /* BR_CPU_CHUNK */

struct br_plain {
    br_set_view v;      /* arrays owned by block */
    br_set_sums *part;  /* one per chunk */
    long nchunk;
    double *block;
};

br_plain *br_plain_create(const br_contact_set_desc *d)
{
    br_plain *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    const long n = d->npoints;
    br_set_view *v = &p->v;
    v->n = n, v->law = d->law, v->nstate = br_law_nstate(d->law, &d->fric);
    p->nchunk = (n + BR_CPU_CHUNK - 1) / BR_CPU_CHUNK;
    p->block = calloc((size_t)n * (size_t)(5 + v->nstate), sizeof(double));
    p->part = calloc((size_t)p->nchunk, sizeof *p->part);
    if (!p->block || !p->part) {
        br_plain_destroy(p);
        return NULL;
    }
    double *rx = p->block, *ry = rx + n, *rz = ry + n, *K = rz + n, *D = K + n;
    for (long i = 0; i < n; i++) {
        rx[i] = d->r[3 * i], ry[i] = d->r[3 * i + 1], rz[i] = d->r[3 * i + 2];
        K[i] = d->K ? d->K[i] : d->K0;
        D[i] = d->D ? d->D[i] : d->D0;
    }
    v->rx = rx, v->ry = ry, v->rz = rz, v->K = K, v->D = D;
    v->state = D + n;
    v->v_stick = d->v_stick, v->normal = d->normal, v->fric = d->fric;
    return p;
}

/* view, frame, h, points [i0, i1) -> their sums, one point after the other (law and surface as
 * run-time values) */
static void plain_chunk(const br_set_view *v, const br_set_frame *f, double h, long i0, long i1, br_set_sums *s)
{
    br_sums_zero(s);
    for (long i = i0; i < i1; i++) {
        const br_set_sums q = br_point_sums(v->law, f->surface, v, f, h, i);
        br_sums_combine(s, &q);
    }
}

void br_plain_step(br_plain *p, const br_set_frame *f, double h, br_set_sums *out)
{
#pragma omp parallel for schedule(static) if (p->nchunk > 1)
    for (long c = 0; c < p->nchunk; c++) {
        const long i0 = c * BR_CPU_CHUNK, i1 = i0 + BR_CPU_CHUNK < p->v.n ? i0 + BR_CPU_CHUNK : p->v.n;
        plain_chunk(&p->v, f, h, i0, i1, &p->part[c]);
    }
    br_sums_zero(out);
    for (long c = 0; c < p->nchunk; c++) br_sums_combine(out, &p->part[c]);
}

void br_plain_destroy(br_plain *p)
{
    if (!p) return;
    free(p->block);
    free(p->part);
    free(p);
}
