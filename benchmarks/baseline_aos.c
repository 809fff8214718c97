/* baseline_aos.c: the unfused array-of-structs reference implementation (see baseline_aos.h). */
#include "baseline_aos.h"

#include <stdlib.h>
#include <string.h>

typedef struct aos_point {
    double r[3];
    double K, D;
    br_point_kin kin;
    double N;
    double F[3];
    double P;
} aos_point;

struct br_baseline {
    long n;
    int law;
    br_normal_params normal;
    br_friction_params fric;
    double v_stick;
    int ns;      /* state doubles per point */
    aos_point *p;
    double *Z;   /* ns per point, point-major: each point's state beside its record's index */
};

br_baseline *br_baseline_create(const br_contact_set_desc *d)
{
    br_baseline *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->n = d->npoints;
    b->law = d->law;
    b->normal = d->normal;
    b->fric = d->fric;
    b->v_stick = d->v_stick;
    b->ns = br_law_nstate(d->law, &d->fric);
    b->p = calloc((size_t)d->npoints, sizeof *b->p);
    b->Z = calloc((size_t)d->npoints * (size_t)(b->ns > 0 ? b->ns : 1), sizeof *b->Z);
    if (!b->p || !b->Z) {
        free(b->p);
        free(b->Z);
        free(b);
        return NULL;
    }
    for (long i = 0; i < d->npoints; i++) {
        memcpy(b->p[i].r, d->r + 3 * i, sizeof b->p[i].r);
        b->p[i].K = d->K ? d->K[i] : d->K0;
        b->p[i].D = d->D ? d->D[i] : d->D0;
    }
    return b;
}

void br_baseline_step(br_baseline *b, const br_set_frame *f, double h, br_set_sums *out)
{
    const int ns = b->ns;
    /* pass 1: kinematics */
    for (long i = 0; i < b->n; i++) br_kin_plane(f, b->p[i].r, &b->p[i].kin);
    /* pass 2: normal force */
    for (long i = 0; i < b->n; i++) {
        aos_point *q = &b->p[i];
        q->N = br_hunt_crossley(&b->normal, q->K, q->D, q->kin.delta, q->kin.deltadot);
    }
    /* pass 3: friction law and state */
    for (long i = 0; i < b->n; i++) {
        aos_point *q = &b->p[i];
        if (q->kin.delta > 0.0) {
            br_friction_eval(b->law, &b->fric, h, q->kin.Vt, q->kin.v, q->kin.n, q->N, q->K, b->Z + i * ns, 1, q->F, &q->P, NULL);
        } else {
            for (int k = 0; k < ns; k++) b->Z[i * ns + k] = 0.0;
            q->F[0] = q->F[1] = q->F[2] = q->P = 0.0;
        }
    }
    /* pass 4: reduction, in point order */
    br_sums_zero(out);
    for (long i = 0; i < b->n; i++) {
        const aos_point *q = &b->p[i];
        if (!(q->kin.delta > 0.0)) continue;
        const double Kd = q->K * br_pow_half(q->kin.delta, b->normal.pK);
        const double Eel = br_normal_energy(&b->normal, Kd, q->kin.delta);
        const double Pnd = (q->N - Kd) * q->kin.deltadot;
        const double Eb = br_friction_stored_energy(b->law, &b->fric, q->N, q->K, b->Z + i * ns, 1);
        br_set_sums one;
        br_sums_point(&one, 1, &q->kin, f->n, q->N, Eel, Pnd, q->F, q->P, Eb,
                      br_point_stuck(b->law, &b->fric, q->kin.v, b->v_stick, q->F, q->N));
        br_sums_combine(out, &one);
    }
}

size_t br_baseline_bytes_per_point(const br_baseline *b) { return sizeof(aos_point) + (size_t)b->ns * sizeof(double); }

void br_baseline_destroy(br_baseline *b)
{
    if (!b) return;
    free(b->p);
    free(b->Z);
    free(b);
}
