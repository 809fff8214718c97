/* batch.c: many variants of any model stepped together (batch.h): one contact field over every
 * variant's sets, each variant's frames before it and its remaining stages after it. In: the
 * variants' models and data; out: their forces and accelerations at t_n, each as its own run's. */
#include "step/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h"

/* variants below which a stage runs on the calling thread (a variant's stages are a few us, a
 * parallel region's start and barrier as much) */
#define BR_BATCH_OMP_MIN 64

struct br_batch {
    long nv;
    const br_model **m;          /* the variants' models and data (the caller's) */
    br_data **d;
    br_field *field;             /* every variant's sets */
    long nsets, nframes;
    long *set0, *frame0;         /* per variant: its first field set and first frame */
    br_frame_state *frames;      /* every variant's frames, as the field sees them */
    double *Nset;                /* every variant's prescribed normal forces */
    br_set_result *res;
    int *bad;
};

void br_batch_destroy(br_batch *B)
{
    if (!B) return;
    br_field_destroy(B->field);
    free(B->m), free(B->d), free(B->set0), free(B->frame0), free(B->frames), free(B->Nset), free(B->res), free(B->bad);
    free(B);
}

br_batch *br_batch_create(const br_model *const *m, br_data *const *d, long nv, br_backend_kind backend, char *err,
                          size_t errlen)
{
    br_batch *B = calloc(1, sizeof *B);
    if (!B) return snprintf(err, errlen, "out of memory"), NULL;
    B->nv = nv;
    B->m = malloc((size_t)(nv ? nv : 1) * sizeof *B->m), B->d = malloc((size_t)(nv ? nv : 1) * sizeof *B->d);
    B->set0 = malloc((size_t)(nv ? nv : 1) * sizeof(long)), B->frame0 = malloc((size_t)(nv ? nv : 1) * sizeof(long));
    if (!B->m || !B->d || !B->set0 || !B->frame0) {
        br_batch_destroy(B);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    for (long v = 0; v < nv; v++) {
        if (m[v]->dt != m[0]->dt) { /* one field step for all */
            snprintf(err, errlen, "variant %ld cannot join the batch: its step %g s is not variant 0's %g s", v, m[v]->dt,
                     m[0]->dt);
            br_batch_destroy(B);
            return NULL;
        }
        for (int s = 0; s < m[v]->nset; s++)
            if (m[v]->cset[s].desc.iface) { /* their inputs are the data's field's (docs/superelements-plan.md) */
                snprintf(err, errlen, "variant %ld cannot join the batch: contact set '%s' is a deforming interface", v,
                         m[v]->cset[s].name);
                br_batch_destroy(B);
                return NULL;
            }
        B->m[v] = m[v], B->d[v] = d[v];
        B->set0[v] = B->nsets, B->frame0[v] = B->nframes;
        B->nsets += m[v]->nset, B->nframes += br_model_nframe(m[v]);
    }
    const size_t ns = (size_t)(B->nsets ? B->nsets : 1);
    br_contact_set_desc *desc = malloc(ns * sizeof *desc);
    B->frames = calloc((size_t)(B->nframes ? B->nframes : 1), sizeof *B->frames);
    B->Nset = calloc(ns, sizeof(double));
    B->res = calloc(ns, sizeof *B->res);
    B->bad = calloc(ns, sizeof(int));
    if (!desc || !B->frames || !B->Nset || !B->res || !B->bad) {
        free(desc);
        br_batch_destroy(B);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    for (long v = 0; v < nv; v++)
        for (int s = 0; s < m[v]->nset; s++) { /* the variant's frames follow the others' in the field's frame list */
            br_contact_set_desc *q = &desc[B->set0[v] + s];
            *q = d[v]->desc[s];
            q->frame_a += (int)B->frame0[v], q->frame_b += (int)B->frame0[v];
        }
    B->field = B->nsets ? br_field_create(desc, (int)B->nsets, backend, err, errlen) : NULL;
    free(desc);
    if (B->nsets && !B->field) {
        br_batch_destroy(B);
        return NULL;
    }
    return B;
}

void br_batch_forces(br_batch *B, const long *run, long nrun, const int *energy, int *failed, char *const *err,
                     size_t errlen)
{
    if (nrun <= 0) return;
#pragma omp parallel for schedule(static) if (nrun >= BR_BATCH_OMP_MIN)
    for (long k = 0; k < nrun; k++) {
        const long v = run[k];
        const br_model *m = B->m[v];
        br_data *d = B->d[v];
        failed[v] = 0;
        br_fwd_frames(m, d);
        br_fwd_contacts_prepare(m, d);
        memcpy(B->frames + B->frame0[v], d->fframes, (size_t)br_model_nframe(m) * sizeof *B->frames);
        memcpy(B->Nset + B->set0[v], d->Nset, (size_t)m->nset * sizeof(double));
    }
    char ferr[600];
    if (B->field && br_field_step_sets(B->field, B->frames, B->Nset, B->m[run[0]]->dt, B->res, B->bad, ferr, sizeof ferr))
        for (long k = 0; k < nrun; k++) { /* a variant with a non-finite set fails alone (named, one thread) */
            const long v = run[k];
            for (int s = 0; s < B->m[v]->nset && !failed[v]; s++)
                if (B->bad[B->set0[v] + s]) {
                    char what[400];
                    br_field_describe(B->field, (int)(B->set0[v] + s), what, sizeof what);
                    snprintf(err[v], errlen, "t = %.9g s: %s", B->d[v]->t, what);
                    failed[v] = 1;
                }
        }
#pragma omp parallel for schedule(static) if (nrun >= BR_BATCH_OMP_MIN)
    for (long k = 0; k < nrun; k++) {
        const long v = run[k];
        if (failed[v]) continue;
        br_data *d = B->d[v];
        memcpy(d->res, B->res + B->set0[v], (size_t)B->m[v]->nset * sizeof *d->res);
        if (br_step_after_contacts(B->m[v], d, energy[v], err[v], errlen)) failed[v] = 1;
    }
}

const br_field *br_batch_field(const br_batch *B) { return B ? B->field : NULL; }
