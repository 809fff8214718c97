/* field.c: the backend-neutral contact field: validates and stores contact
 * sets, condenses frames into per-set frame data, calls the backend's step
 * and turns per-set sums into wrenches on both frames (physics.md 1, 6). */
#include "field/field.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ckpt_io.h"
#include "field/field_internal.h"

static int fail(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* desc -> 0 if every number is finite and physical, else -1 with err */
static int check_desc(const br_contact_set_desc *d, char *err, size_t n)
{
    const char *nm = d->name ? d->name : "(unnamed)";
    if (d->law < 0 || d->law >= BR_LAW_COUNT) return fail(err, n, "set %s: unknown friction law", nm);
    if (d->npoints <= 0 || !d->r) return fail(err, n, "set %s: no contact points", nm);
    const double nn = br_norm3(d->plane_n);
    if (d->surface < 0 || d->surface >= BR_SURF_COUNT) return fail(err, n, "set %s: unknown surface", nm);
    if (d->surface != BR_SURF_SPHERE && !(fabs(nn - 1.0) < 1e-9))
        return fail(err, n, "set %s: plane normal (cylinder axis) is not a unit vector", nm);
    if (d->surface != BR_SURF_PLANE && !(d->radius > 0.0 && isfinite(d->radius)))
        return fail(err, n, "set %s: the surface radius must be > 0", nm);
    for (long i = 0; i < 3 * d->npoints; i++)
        if (!isfinite(d->r[i])) return fail(err, n, "set %s: point %ld is not finite", nm, i / 3);
    for (long i = 0; i < d->npoints; i++) {
        double K = d->K ? d->K[i] : d->K0, D = d->D ? d->D[i] : d->D0;
        if (!(K >= 0.0 && isfinite(K) && D >= 0.0 && isfinite(D)))
            return fail(err, n, "set %s: point %ld has a negative or non-finite K or D", nm, i);
    }
    if (!(d->normal.pK > 0.0 && br_pow_half_ok(d->normal.pK) && br_pow_half_ok(d->normal.pD)))
        return fail(err, n, "set %s: Hunt-Crossley exponents pK, pD must be multiples of 0.5 in [0, 4] "
                            "(pK > 0)", nm);
    br_law_issue is;
    if (br_law_check(d->law, &d->fric, &is)) return fail(err, n, "set %s: %s: %s", nm, is.key, is.msg);
    if (!(d->v_stick >= 0.0)) return fail(err, n, "set %s: v_stick must be >= 0", nm);
    if (d->iface && (!d->iR || d->tangent || d->frame_a != 0 || d->frame_b != 0))
        return fail(err, n, "set %s: a deforming interface needs its points' frames, on the ground frame, no tangent", nm);
    return 0;
}

int br_cuda_available(char *why, size_t whylen)
{
#ifdef BRISTLE_HAVE_CUDA
    extern int br_cuda_device_count(char *why, size_t whylen);
    return br_cuda_device_count(why, whylen);
#else
    if (why && whylen) snprintf(why, whylen, "this binary was built without CUDA");
    return 0;
#endif
}

br_backend_kind br_backend_choose(br_backend_kind requested, int ngpu, long npoints, int nsets)
{
    if (requested == BR_BACKEND_CUDA) return BR_BACKEND_CUDA;
    if (requested == BR_BACKEND_CPU || ngpu <= 0) return BR_BACKEND_CPU;
    const int big = npoints >= BR_AUTO_GPU_MIN_POINTS && npoints >= (long)BR_AUTO_GPU_MIN_SET_POINTS * (nsets > 1 ? nsets : 1);
    return big ? BR_BACKEND_CUDA : BR_BACKEND_CPU;
}

br_field *br_field_create(const br_contact_set_desc *sets, int nsets, br_backend_kind backend,
                          char *err, size_t errlen)
{
    if (nsets <= 0) {
        fail(err, errlen, "no contact sets");
        return NULL;
    }
    for (int s = 0; s < nsets; s++)
        if (check_desc(&sets[s], err, errlen)) return NULL;

    const br_backend_ops *ops = &br_backend_cpu;
    char why[256] = "";
    int ngpu = br_cuda_available(why, sizeof why);
    if (backend == BR_BACKEND_CUDA && ngpu <= 0) {
        fail(err, errlen, "backend cuda requested but no usable GPU: %s", why);
        return NULL;
    }
    int niface = 0;
    for (int s = 0; s < nsets; s++) niface += sets[s].iface != 0;
    if (backend == BR_BACKEND_CUDA && niface) { /* docs/superelements-plan.md */
        fail(err, errlen, "backend cuda: deforming interfaces run on the CPU backend for now");
        return NULL;
    }
#ifdef BRISTLE_HAVE_CUDA
    long ntotal = 0;
    for (int s = 0; s < nsets; s++) ntotal += sets[s].npoints;
    if (!niface && br_backend_choose(backend, ngpu, ntotal, nsets) == BR_BACKEND_CUDA) ops = &br_backend_cuda;
#endif

    br_field *f = calloc(1, sizeof *f);
    if (!f) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->nsets = nsets;
    f->sets = calloc((size_t)nsets, sizeof *f->sets);
    f->frames = calloc((size_t)nsets, sizeof *f->frames);
    f->sums = calloc((size_t)nsets, sizeof *f->sums);
    f->tans = calloc((size_t)nsets, sizeof *f->tans);
    f->E = calloc((size_t)nsets, sizeof(double));
    f->E_nd = calloc((size_t)nsets, sizeof(double));

    /* One host block for every per-point array: geometry, optional K/D, state. */
    size_t ndoubles = 0;
    long npartials = 0;
    for (int s = 0; s < nsets; s++) {
        const br_contact_set_desc *d = &sets[s];
        ndoubles += (size_t)d->npoints * (5 + (size_t)br_law_nstate(d->law, &d->fric));
        if (d->iface) ndoubles += (size_t)d->npoints * (6 + 9 + BR_IFACE_NPT);
        npartials += (d->npoints + BR_CPU_CHUNK - 1) / BR_CPU_CHUNK;
        f->npoints += d->npoints;
    }
    f->host_block = calloc(ndoubles ? ndoubles : 1, sizeof(double));
    f->host_bytes = ndoubles * sizeof(double);
    f->partials = calloc((size_t)npartials, sizeof *f->partials);
    f->tpartials = calloc((size_t)npartials, sizeof *f->tpartials);
    f->npartials = npartials;
    if (!f->sets || !f->frames || !f->sums || !f->tans || !f->E || !f->E_nd || !f->host_block || !f->partials ||
        !f->tpartials) {
        br_field_destroy(f);
        fail(err, errlen, "out of memory");
        return NULL;
    }
    double *p = f->host_block;
    long poff = 0;
    for (int s = 0; s < nsets; s++) {
        const br_contact_set_desc *d = &sets[s];
        br_field_set *fs = &f->sets[s];
        snprintf(fs->name, sizeof fs->name, "%s", d->name ? d->name : "set");
        fs->frame_a = d->frame_a;
        fs->frame_b = d->frame_b;
        fs->geom = *d;
        fs->geom.r = fs->geom.K = fs->geom.D = fs->geom.iR = NULL;
        fs->geom.name = NULL;
        br_set_view *v = &fs->view;
        long n = d->npoints;
        v->n = n;
        v->law = d->law;
        v->nstate = br_law_nstate(d->law, &d->fric);
        fs->tangent = d->tangent != 0;
        double *rx = p, *ry = p + n, *rz = p + 2 * n;
        p += 3 * n;
        for (long i = 0; i < n; i++) {
            rx[i] = d->r[3 * i];
            ry[i] = d->r[3 * i + 1];
            rz[i] = d->r[3 * i + 2];
        }
        v->rx = rx;
        v->ry = ry;
        v->rz = rz;
        double *K = p, *D = p + n; /* per point always: one loop shape for all sets */
        p += 2 * n;
        for (long i = 0; i < n; i++) {
            K[i] = d->K ? d->K[i] : d->K0;
            D[i] = d->D ? d->D[i] : d->D0;
        }
        v->K = K;
        v->D = D;
        v->v_stick = d->v_stick;
        v->normal = d->normal;
        v->fric = d->fric;
        v->fric.slip_unsolved = 0; /* the CPU stick pass's switch: never the caller's */
        v->state = p;
        p += (size_t)v->nstate * n;
        if (d->iface) {
            double *iR = p + 6 * n;
            v->iu = p, v->iR = iR, v->ipt = p + 15 * n;
            for (long i = 0; i < n; i++)
                for (int k = 0; k < 9; k++) iR[k * n + i] = d->iR[9 * i + k];
            p += (size_t)(6 + 9 + BR_IFACE_NPT) * n;
        }
        fs->partial_off = poff;
        fs->npartial = (n + BR_CPU_CHUNK - 1) / BR_CPU_CHUNK;
        poff += fs->npartial;
    }
    f->ops = ops;
    snprintf(f->device, sizeof f->device, "cpu");
    if (ops->create(f, err, errlen)) {
        br_field_destroy(f);
        return NULL;
    }
    return f;
}

void br_field_destroy(br_field *f)
{
    if (!f) return;
    if (f->ops && f->backend) f->ops->destroy(f);
    free(f->sets);
    free(f->frames);
    free(f->sums);
    free(f->tans);
    free(f->tpartials);
    free(f->E);
    free(f->E_nd);
    free(f->host_block);
    free(f->partials);
    free(f->outF);
    free(f->outN);
    free(f);
}

void br_set_frame_build(const br_contact_set_desc *d, const br_frame_state *A, const br_frame_state *B,
                        br_set_frame *out)
{
    br_set_frame_make(d->surface, d->plane_p, d->plane_n, d->radius, A, B, -1.0, out);
}

/* set s after a non-finite step, its frame -> "point i: what" naming the first point with a
 * non-finite bristle state, or else the first whose kinematics or normal force (recomputed
 * on the host with the shared per-point functions) is not finite */
static void describe_bad_point(const br_field *f, int s, const br_set_frame *sf, char *out, size_t len)
{
    const br_set_view *v = &f->sets[s].view;
    for (long i = 0; i < v->n; i++)
        for (int k = 0; k < v->nstate; k++)
            if (!isfinite(v->state[k * v->n + i])) {
                snprintf(out, len, "point %ld: non-finite bristle state", i);
                return;
            }
    for (long i = 0; i < v->n; i++) {
        const double r[3] = {v->rx[i], v->ry[i], v->rz[i]};
        br_point_kin k;
        if (v->iu) {
            double u[3], w[3];
            br_iface_inputs(v, i, u, w);
            br_kin_local(u, w, &k);
        } else br_kin(sf->surface, sf, r, &k);
        const double N = sf->Npt >= 0.0 ? sf->Npt
                                        : br_hunt_crossley(&v->normal, v->K[i], v->D[i], k.delta, k.deltadot);
        if (!isfinite(k.delta) || !isfinite(k.deltadot) || !isfinite(k.v) || !isfinite(N)) {
            snprintf(out, len, "point %ld: non-finite contact force (penetration %.3g m, rate %.3g m/s, "
                               "normal force %.3g N)", i, k.delta, k.deltadot, N);
            return;
        }
    }
    snprintf(out, len, "non-finite contact force (no single point found)");
}

int br_field_step(br_field *f, const br_frame_state *frames, const double *normal_force, double h,
                  br_set_result *res, char *err, size_t errlen)
{
    return br_field_step_sets(f, frames, normal_force, h, res, NULL, err, errlen);
}

int br_field_step_sets(br_field *f, const br_frame_state *frames, const double *normal_force, double h,
                       br_set_result *res, int *bad, char *err, size_t errlen)
{
    int nbad = 0;
    for (int s = 0; s < f->nsets; s++) {
        const br_field_set *fs = &f->sets[s];
        const br_contact_set_desc *g = &fs->geom;
        const double Nset = normal_force ? normal_force[s] : -1.0;
        if (!(Nset < 0.0 || isfinite(Nset)))
            return fail(err, errlen, "contact set '%s': non-finite prescribed normal force", fs->name);
        br_set_frame_make(g->surface, g->plane_p, g->plane_n, g->radius, &frames[fs->frame_a],
                          &frames[fs->frame_b], Nset >= 0.0 ? Nset / (double)fs->view.n : -1.0, &f->frames[s]);
    }
    if (f->ops->step(f, f->frames, h, f->sums, f->tans, err, errlen)) return -1;
    for (int s = 0; s < f->nsets; s++) {
        const br_set_sums *m = &f->sums[s];
        if (bad) bad[s] = 0;
        if (!br_set_sums_finite(m)) {
            if (nbad++ == 0) { /* the first bad set named in err */
                f->ops->sync_to_host(f);
                char what[200];
                describe_bad_point(f, s, &f->frames[s], what, sizeof what);
                fail(err, errlen, "contact set '%s', %s", f->sets[s].name, what);
            }
            if (!bad) return -1;
            bad[s] = 1;
            continue;
        }
        const br_set_frame *sf = &f->frames[s];
        br_set_result_finish(m, f->sets[s].tangent ? &f->tans[s] : NULL, sf->xA, frames[f->sets[s].frame_b].x, h, &f->E[s],
                             &f->E_nd[s], &res[s]);
    }
    return nbad ? -1 : 0;
}

int br_field_describe(br_field *f, int s, char *out, size_t len)
{
    if (s < 0 || s >= f->nsets || f->ops->sync_to_host(f)) return -1;
    char what[200];
    describe_bad_point(f, s, &f->frames[s], what, sizeof what);
    snprintf(out, len, "contact set '%s', %s", f->sets[s].name, what);
    return 0;
}

int br_field_iface(br_field *f, int s, double **iu, const double **ipt)
{
    if (s < 0 || s >= f->nsets || !f->sets[s].geom.iface) return -1;
    *iu = (double *)f->sets[s].view.iu;
    *ipt = f->sets[s].view.ipt;
    return 0;
}

void br_field_record_points(br_field *f, int on)
{
    if (on && !f->outF) {
        f->outF = calloc((size_t)(3 * f->npoints), sizeof(double));
        f->outN = calloc((size_t)f->npoints, sizeof(double));
        if (!f->outF || !f->outN) { /* out of memory: no recording (br_field_points then fails) */
            free(f->outF), free(f->outN);
            f->outF = f->outN = NULL;
            f->record = 0;
            return;
        }
        long off = 0;
        for (int s = 0; s < f->nsets; s++) {
            f->sets[s].view.outF = f->outF + 3 * off;
            f->sets[s].view.outN = f->outN + off;
            off += f->sets[s].view.n;
        }
    }
    f->record = on && f->outF && f->outN;
    if (f->record && f->ops->start_recording && f->ops->start_recording(f)) f->record = 0;
}

int br_field_points(br_field *f, int set, double *F, double *N)
{
    if (set < 0 || set >= f->nsets || !f->record) return -1;
    if (f->ops->sync_to_host(f)) return -1;
    const br_set_view *v = &f->sets[set].view;
    for (long i = 0; i < v->n; i++) {
        for (int j = 0; j < 3; j++) F[3 * i + j] = v->outF[j * v->n + i];
        if (N) N[i] = v->outN[i];
    }
    return 0;
}

int br_field_get_state(br_field *f, int set, double *state)
{
    if (set < 0 || set >= f->nsets) return -1;
    if (f->ops->sync_to_host(f)) return -1;
    const br_set_view *v = &f->sets[set].view;
    memcpy(state, v->state, (size_t)v->nstate * (size_t)v->n * sizeof(double));
    return 0;
}

int br_field_set_state(br_field *f, int set, const double *state)
{
    if (set < 0 || set >= f->nsets) return -1;
    if (f->ops->sync_to_host(f)) return -1;
    const br_set_view *v = &f->sets[set].view;
    memcpy(v->state, state, (size_t)v->nstate * (size_t)v->n * sizeof(double));
    return f->ops->sync_from_host(f);
}

int br_field_checkpoint(br_field *f, br_ckpt *c)
{
    if (f->ops->sync_to_host(f)) return -1;
    for (int s = 0; s < f->nsets; s++) {
        const br_set_view *v = &f->sets[s].view;
        br_ckpt_io(c, "field_state", v->state, (size_t)v->nstate * (size_t)v->n * sizeof(double));
    }
    br_ckpt_io(c, "field_E", f->E, (size_t)f->nsets * sizeof(double));
    br_ckpt_io(c, "field_E_nd", f->E_nd, (size_t)f->nsets * sizeof(double));
    if (c->failed) return -1;
    return c->writing ? 0 : f->ops->sync_from_host(f);
}

const char *br_field_backend_name(const br_field *f) { return f->ops->name; }
const char *br_field_device_name(const br_field *f) { return f->device; }
size_t br_field_bytes(const br_field *f) { return f->host_bytes; }
