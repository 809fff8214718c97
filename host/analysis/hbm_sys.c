/* hbm_sys.c: the linear system harmonic balance works on (hbm.h): a scenario's structure, free
 * bodies, springs and loads as M, C, K and load vectors over one DOF numbering, the DOFs that move
 * the contact frames, and per base frequency the receptances of the dynamic stiffness per harmonic. */
#include <complex.h>

#include "analysis/hbm.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/laws.h"
#include "model/rigid.h"
#include "io/scenario.h"

/* every allocation of s freed, s zeroed */
void br_hbm_sys_free(br_hbm_sys *s)
{
    br_struct_free(s->st);
    free(s->bdof), free(s->M), free(s->C), free(s->K), free(s->f0), free(s->fc), free(s->fs);
    free(s->Nset), free(s->nl), free(s->ifoff), free(s->Tp), free(s->Tj), free(s->Tx), free(s->kb);
    memset(s, 0, sizeof *s);
}

double complex br_hbm_coord(const br_hbm_sys *s, int i, const double complex *v)
{
    if (i < s->nnl_dof) return v[s->nl[i]];
    double complex x = 0.0;
    for (long e = s->Tp[i - s->nnl_dof]; e < s->Tp[i - s->nnl_dof + 1]; e++) x += s->Tx[e] * v[s->Tj[e]];
    return x;
}

void br_hbm_coord_add(const br_hbm_sys *s, int i, double complex a, double complex *v)
{
    if (i < s->nnl_dof) {
        v[s->nl[i]] += a;
        return;
    }
    for (long e = s->Tp[i - s->nnl_dof]; e < s->Tp[i - s->nnl_dof + 1]; e++) v[s->Tj[e]] += s->Tx[e] * a;
}

void br_hbm_bond(const br_hbm_sys *s, double complex *Z)
{
    const size_t n = (size_t)s->ndof;
    for (int i = 0; i < s->nif; i++)
        for (long e = s->Tp[i]; e < s->Tp[i + 1]; e++)
            for (long f = s->Tp[i]; f < s->Tp[i + 1]; f++) Z[(size_t)s->Tj[f] * n + s->Tj[e]] += s->kb[i] * s->Tx[e] * s->Tx[f];
}

void br_hbm_dynamic_stiffness(const br_hbm_sys *s, double kw, int bond, double complex *Z)
{
    const size_t n = (size_t)s->ndof;
    for (size_t e = 0; e < n * n; e++) Z[e] = s->K[e] - kw * kw * s->M[e] + I * kw * s->C[e];
    if (bond) br_hbm_bond(s, Z);
}

/* system with its DOF coordinates -> the interface coordinates appended: per interface point its three rows L_i
 * over the structure's DOFs (the part's rows moved to the structure's numbering); 0 or -1 (out of memory) */
static int interface_coords(br_hbm_sys *s)
{
    const br_model *m = s->m;
    long nz = 0;
    s->ifoff = malloc((size_t)(m->nset + 1) * sizeof(int));
    if (!s->ifoff) return -1;
    for (int c = 0; c < m->nset; c++) {
        const br_cset *C = &m->cset[c];
        s->ifoff[c] = C->desc.iface ? s->nnl_dof + s->nif : -1;
        if (!C->desc.iface) continue;
        s->nif += 3 * (int)C->desc.npoints;
        nz += C->Lp[3 * C->desc.npoints];
    }
    s->Tp = malloc((size_t)(s->nif + 1) * sizeof(long)), s->kb = malloc((size_t)(s->nif + 1) * sizeof(double));
    s->Tj = malloc((size_t)(nz + 1) * sizeof(int)), s->Tx = malloc((size_t)(nz + 1) * sizeof(double));
    if (!s->Tp || !s->Tj || !s->Tx || !s->kb) return -1;
    long r = 0, e0 = 0;
    s->Tp[0] = 0;
    for (int c = 0; c < m->nset; c++) {
        const br_cset *C = &m->cset[c];
        if (!C->desc.iface) continue;
        const int r0 = s->st->row0[C->ipart - m->nbeam];
        const br_contact_set_desc *d = &C->desc;
        for (long p = 0; p < d->npoints; p++) { /* the bond: the normal law's slope at 1 MPa, the stuck stiffness */
            const double K = d->K ? d->K[p] : d->K0, Nb = 1e6 * (C->area ? C->area[p] : 0.0);
            const double kn = K > 0.0 && Nb > 0.0 ? d->normal.pK * Nb / pow(Nb / K, 1.0 / d->normal.pK) : 0.0;
            const double kt = br_law_stick_stiffness(d->law, &d->fric, Nb, K);
            s->kb[r + 3 * p] = s->kb[r + 3 * p + 1] = kt > 0.0 ? kt : kn, s->kb[r + 3 * p + 2] = kn;
        }
        for (long i = 0; i < 3 * C->desc.npoints; i++, r++) {
            for (long e = C->Lp[i]; e < C->Lp[i + 1]; e++, e0++) s->Tj[e0] = r0 + C->Lj[e], s->Tx[e0] = C->Lx[e];
            s->Tp[r + 1] = e0;
        }
    }
    s->nnl = s->nnl_dof + s->nif;
    return 0;
}

/* model, frame -> the structure node carrying it, -1 for the ground or a free body */
static int frame_node(const br_hbm_sys *s, int frame)
{
    if (frame < 1 || frame > s->m->nbody || s->m->body[frame - 1].part < 0) return -1;
    const br_body *B = &s->m->body[frame - 1];
    return s->st->node0[B->part] + B->node;
}

void br_hbm_frames(const br_hbm_sys *s, const double *u, const double *v, const unsigned char *only,
                   br_frame_state *fr)
{
    const br_model *m = s->m;
    memset(&fr[0], 0, sizeof fr[0]);
    fr[0].R[0] = fr[0].R[4] = fr[0].R[8] = 1.0;
    for (int b = 0; b < m->nbody; b++) {
        const br_body *B = &m->body[b];
        br_frame_state *f = &fr[1 + b];
        if (only && !only[1 + b]) continue;
        if (B->part >= 0) {
            br_struct_body_frame(s->st, B, frame_node(s, 1 + b), u, v, f);
            continue;
        }
        br_quat_to_R(B->q0, f->R);
        for (int j = 0; j < 3; j++) {
            const int d = s->bdof[3 * b + j];
            f->x[j] = B->x0[j] + (d >= 0 ? u[d] : 0.0);
            f->v[j] = d >= 0 ? v[d] : 0.0;
            f->w[j] = 0.0;
        }
    }
}

/* a frame's wrench (F at its origin x, M) -> added to g */
static void add_wrench(const br_hbm_sys *s, int frame, const double *u, const double x[3], const double F[3],
                       const double M[3], double *g)
{
    if (frame < 1 || frame > s->m->nbody) return;
    const int node = frame_node(s, frame);
    if (node >= 0) {
        double xn[3];
        for (int j = 0; j < 3; j++) {
            const int d = s->st->dof[6 * node + j];
            xn[j] = s->st->X[3 * node + j] + (d >= 0 ? u[d] : 0.0);
        }
        br_struct_add_force(s->st, node, xn, F, x, g);
        br_struct_add_torque(s->st, node, M, g);
        return;
    }
    for (int j = 0; j < 3; j++) { /* a free body's rotations are locked: M is taken by the lock */
        const int d = s->bdof[3 * (frame - 1) + j];
        if (d >= 0) g[d] += F[j];
    }
}

void br_hbm_contact_force(const br_hbm_sys *s, const br_frame_state *fr, const double *u,
                          const br_set_result *res, double *g)
{
    memset(g, 0, (size_t)s->ndof * sizeof(double));
    for (int c = 0; c < s->m->nset; c++) {
        const br_contact_set_desc *d = &s->m->cset[c].desc;
        add_wrench(s, d->frame_a, u, fr[d->frame_a].x, res[c].F_A, res[c].M_A, g);
        add_wrench(s, d->frame_b, u, fr[d->frame_b].x, res[c].F_B, res[c].M_B, g);
    }
}

/* frame, world point p -> G (3 x ndof, row-major): the point's displacement per DOF; 0 or -1 */
static int point_rows(const br_hbm_sys *s, int frame, const double p[3], double *G)
{
    const int n = s->ndof;
    memset(G, 0, (size_t)3 * n * sizeof(double));
    if (frame < 1 || frame > s->m->nbody) return 0;
    const int node = frame_node(s, frame);
    if (node < 0) {
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * (frame - 1) + j] >= 0) G[(size_t)j * n + s->bdof[3 * (frame - 1) + j]] = 1.0;
        return 0;
    }
    double *L = malloc((size_t)6 * s->nst * sizeof(double));
    if (!L || br_struct_twist_rows(s->st, node, -1, p, L)) {
        free(L);
        return -1;
    }
    for (int j = 0; j < 3; j++) memcpy(G + (size_t)j * n, L + (size_t)j * s->nst, (size_t)s->nst * sizeof(double));
    free(L);
    return 0;
}

/* a time function of a load or a prescribed normal force -> its static part *c0 and its harmonic part
 * (*ac cos + *as sin at the base frequency); 0, or -1 when it is neither */
static int split_timefn(const br_timefn *f, double *c0, double *ac, double *as)
{
    switch (f->kind) {
    case BR_TF_CONSTANT: *c0 += f->c; return 0;
    case BR_TF_RAMP: *c0 += f->y1; return 0; /* a ramp to a constant: its end value */
    case BR_TF_HARMONIC: {
        if (f->amp && f->amp->kind != BR_TF_CONSTANT) return -1;
        const double A = f->amp ? f->amp->c : 1.0; /* A sin(w t + phase) */
        *ac += A * sin(f->phase), *as += A * cos(f->phase);
        return 0;
    }
    case BR_TF_SUM:
        for (int k = 0; k < f->nterm; k++)
            if (split_timefn(&f->term[k], c0, ac, as)) return -1;
        return 0;
    default: return -1;
    }
}

/* "file:line: message" for the scenario key path */
static int fail_at(const br_model *m, const char *text, size_t len, const char *key, char *err, size_t errlen,
                   const char *msg)
{
    snprintf(err, errlen, "%s:%ld: %s", m->source, br_scenario_line(m->source, text, len, key), msg);
    return -1;
}

/* model -> the refusals of what harmonic balance cannot take; 0, or -1 with err */
static int check_model(const br_model *m, const char *text, size_t len, char *err, size_t errlen)
{
    char key[BR_NAME_MAX + 64], msg[512];
    if (m->nkframe > 0)
        return fail_at(m, text, len, "frames", err, errlen,
                       "hbm: frames with prescribed motion are not supported (the model must be at rest but for "
                       "its harmonic loads)");
    if (m->nrot > 0)
        return fail_at(m, text, len, "rotational_friction", err, errlen,
                       "hbm: rotational friction elements are not supported");
    if (m->drive.nshaft > 0)
        return fail_at(m, text, len, "drivetrain", err, errlen, "hbm: drivetrains are not supported");
    for (int b = 0; b < m->nbody; b++) {
        const br_body *B = &m->body[b];
        const int rot = BR_LOCK_RX | BR_LOCK_RY | BR_LOCK_RZ;
        if (B->part < 0 && (B->lock & rot) != rot) {
            snprintf(key, sizeof key, "bodies.%s", B->name);
            snprintf(msg, sizeof msg, "hbm: body '%s' may rotate: a free body must lock rx, ry and rz (only its "
                                      "translations are linear), or ride on a beam", B->name);
            return fail_at(m, text, len, key, err, errlen, msg);
        }
        if (B->part < 0 && (B->v0[0] != 0 || B->v0[1] != 0 || B->v0[2] != 0)) {
            snprintf(key, sizeof key, "bodies.%s", B->name);
            snprintf(msg, sizeof msg, "hbm: body '%s' has an initial velocity: the model must be at rest but for "
                                      "its harmonic loads", B->name);
            return fail_at(m, text, len, key, err, errlen, msg);
        }
    }
    for (int k = 0; k < m->nspring; k++) {
        const br_spring *S = &m->spring[k];
        if (S->torsion || S->rope || S->rest > 0) {
            snprintf(key, sizeof key, "springs.%s", S->name);
            snprintf(msg, sizeof msg, "hbm: spring '%s' is %s: only vector springs (no rest_length) are linear",
                     S->name, S->torsion ? "a torsion spring" : S->rope ? "a rope" : "axial (rest_length > 0)");
            return fail_at(m, text, len, key, err, errlen, msg);
        }
    }
    for (int l = 0; l < m->nload; l++) {
        const br_load *L = &m->load[l];
        double c0 = 0, ac = 0, as = 0;
        snprintf(key, sizeof key, "loads.%s.magnitude", L->name);
        if (split_timefn(&L->mag, &c0, &ac, &as)) {
            snprintf(msg, sizeof msg, "hbm: load '%s' is not harmonic: harmonic balance takes constant loads, ramps "
                                      "(at their end value) and harmonics of constant amplitude (at the base "
                                      "frequency), or sums of them", L->name);
            return fail_at(m, text, len, key, err, errlen, msg);
        }
        if (L->type == BR_LOAD_TORQUE && m->body[L->frame - 1].part < 0) {
            snprintf(msg, sizeof msg, "hbm: torque '%s' on a free body, whose rotations are locked", L->name);
            return fail_at(m, text, len, key, err, errlen, msg);
        }
    }
    for (int c = 0; c < m->nset; c++) {
        const br_cset *S = &m->cset[c];
        double c0 = 0, ac = 0, as = 0;
        if (S->prescribed && (split_timefn(&S->normal_force, &c0, &ac, &as) || ac != 0 || as != 0)) {
            snprintf(key, sizeof key, "contacts.%s.normal", S->name);
            snprintf(msg, sizeof msg, "hbm: the prescribed normal force of '%s' must be constant (or a ramp)",
                     S->name);
            return fail_at(m, text, len, key, err, errlen, msg);
        }
    }
    return 0;
}

int br_hbm_sys_build(const br_model *m, const char *text, size_t len, br_hbm_sys *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    if (check_model(m, text, len, err, errlen)) return -1;
    if (m->nbeam + m->nsup > 0 && !(s->st = br_struct_build(m, err, errlen))) return -1;
    s->nst = s->st ? s->st->ndof : 0;
    s->bdof = malloc((size_t)(3 * m->nbody + 1) * sizeof(int));
    if (!s->bdof) goto oom;
    int n = s->nst;
    for (int b = 0; b < m->nbody; b++)
        for (int j = 0; j < 3; j++)
            s->bdof[3 * b + j] = m->body[b].part < 0 && !(m->body[b].lock & (BR_LOCK_X << j)) ? n++ : -1;
    s->ndof = n;
    if (n == 0) {
        snprintf(err, errlen, "%s:1: hbm: the model has no degree of freedom", m->source);
        return -1;
    }
    const size_t nn = (size_t)n * n;
    s->M = calloc(nn, sizeof(double)), s->C = calloc(nn, sizeof(double)), s->K = calloc(nn, sizeof(double));
    s->f0 = calloc((size_t)n, sizeof(double)), s->fc = calloc((size_t)n, sizeof(double));
    s->fs = calloc((size_t)n, sizeof(double)), s->Nset = malloc((size_t)(m->nset + 1) * sizeof(double));
    s->nl = malloc((size_t)n * sizeof(int));
    double *Ga = malloc((size_t)6 * n * sizeof(double)), *vec = malloc((size_t)n * sizeof(double));
    br_frame_state *fr = malloc((size_t)(1 + m->nbody) * sizeof *fr);
    double *u0 = calloc((size_t)n, sizeof(double));
    if (!s->M || !s->C || !s->K || !s->f0 || !s->fc || !s->fs || !s->Nset || !s->nl || !Ga || !vec || !fr || !u0) {
        free(Ga), free(vec), free(fr), free(u0);
        goto oom;
    }
    double *Gb = Ga + 3 * n;
    for (int i = 0; i < s->nst; i++)
        for (int j = 0; j < s->nst; j++) {
            const size_t a = (size_t)j * s->nst + i, b = (size_t)j * n + i;
            s->M[b] = s->st->M[a], s->C[b] = s->st->C[a], s->K[b] = s->st->K[a];
        }
    for (int b = 0; b < m->nbody; b++)
        for (int j = 0; j < 3; j++)
            if (s->bdof[3 * b + j] >= 0) s->M[(size_t)s->bdof[3 * b + j] * (n + 1)] = m->body[b].mass;
    br_hbm_frames(s, u0, u0, NULL, fr);
    int rc = 0;
    /* springs: F on b = -(k d + c d'), d = p_b - p_a = d0 + (Gb - Ga) q */
    for (int k = 0; k < m->nspring && rc == 0; k++) {
        const br_spring *S = &m->spring[k];
        double pa[3], pb[3], d0[3];
        br_mat3_vec(fr[S->frame_a].R, S->pa, pa);
        br_mat3_vec(fr[S->frame_b].R, S->pb, pb);
        for (int j = 0; j < 3; j++) pa[j] += fr[S->frame_a].x[j], pb[j] += fr[S->frame_b].x[j], d0[j] = pb[j] - pa[j];
        if (point_rows(s, S->frame_a, pa, Ga) || point_rows(s, S->frame_b, pb, Gb)) {
            rc = -1;
            break;
        }
        for (int j = 0; j < 3 * n; j++) Gb[j] -= Ga[j]; /* D = Gb - Ga */
        for (int a = 0; a < n; a++)
            for (int c = 0; c < n; c++) {
                double DD = 0;
                for (int j = 0; j < 3; j++) DD += Gb[(size_t)j * n + a] * Gb[(size_t)j * n + c];
                s->K[(size_t)c * n + a] += S->k * DD, s->C[(size_t)c * n + a] += S->c * DD;
            }
        for (int a = 0; a < n; a++)
            for (int j = 0; j < 3; j++) s->f0[a] -= S->k * Gb[(size_t)j * n + a] * d0[j];
    }
    /* loads and gravity: a unit force along dir at p, per DOF, times the static and harmonic parts */
    for (int l = 0; l < m->nload && rc == 0; l++) {
        const br_load *L = &m->load[l];
        double c0 = 0, ac = 0, as = 0, dir[3], p[3];
        split_timefn(&L->mag, &c0, &ac, &as);
        if (L->type == BR_LOAD_VECTOR) { /* a structure's load vector, on its rows */
            const int r0 = s->st->row0[L->part - m->nbeam];
            for (int a = 0; a < m->sup[L->part - m->nbeam].n; a++) {
                const double v = L->vec[a];
                s->f0[r0 + a] += c0 * v, s->fc[r0 + a] += ac * v, s->fs[r0 + a] += as * v;
            }
            continue;
        }
        const br_frame_state *f = &fr[L->frame];
        if (L->body_axes) br_mat3_vec(f->R, L->dir, dir);
        else memcpy(dir, L->dir, sizeof dir);
        br_mat3_vec(f->R, L->point, p);
        for (int j = 0; j < 3; j++) p[j] += f->x[j];
        memset(vec, 0, (size_t)n * sizeof(double));
        const int node = frame_node(s, L->frame);
        if (L->type == BR_LOAD_TORQUE) br_struct_add_torque(s->st, node, dir, vec);
        else if (node >= 0) br_struct_add_force(s->st, node, s->st->X + 3 * node, dir, p, vec);
        else add_wrench(s, L->frame, u0, f->x, dir, (double[3]){0, 0, 0}, vec);
        for (int a = 0; a < n; a++) s->f0[a] += c0 * vec[a], s->fc[a] += ac * vec[a], s->fs[a] += as * vec[a];
    }
    for (int b = 0; b < m->nbody && rc == 0; b++) {
        const double fg[3] = {m->body[b].mass * m->gravity[0], m->body[b].mass * m->gravity[1],
                              m->body[b].mass * m->gravity[2]};
        add_wrench(s, 1 + b, u0, fr[1 + b].x, fg, (double[3]){0, 0, 0}, s->f0);
    }
    /* prescribed normal forces, and the DOFs that move the contact frames */
    int *mark = calloc((size_t)n, sizeof(int));
    if (!mark) rc = -1;
    for (int c = 0; c < m->nset && rc == 0; c++) {
        const br_cset *S = &m->cset[c];
        double c0 = 0, ac = 0, as = 0;
        if (S->prescribed) split_timefn(&S->normal_force, &c0, &ac, &as);
        s->Nset[c] = S->prescribed ? (c0 > 0 ? c0 : 0.0) : -1.0;
        const int fa[2] = {S->desc.frame_a, S->desc.frame_b};
        for (int side = 0; side < 2; side++) {
            const int f = fa[side];
            if (f < 1 || f > m->nbody) continue;
            const int node = frame_node(s, f);
            for (int j = 0; j < (node >= 0 ? 6 : 3); j++) {
                const int d = node >= 0 ? s->st->dof[6 * node + j] : s->bdof[3 * (f - 1) + j];
                if (d >= 0) mark[d] = 1;
            }
        }
    }
    for (int d = 0; d < n && rc == 0; d++)
        if (mark[d]) s->nl[s->nnl++] = d;
    s->nnl_dof = s->nnl;
    if (rc == 0 && interface_coords(s)) rc = -1;
    free(mark), free(Ga), free(vec), free(fr), free(u0);
    if (rc == 0) return 0;
oom:
    snprintf(err, errlen, "%s:1: hbm: out of memory", m->source);
    br_hbm_sys_free(s);
    return -1;
}

/* system, l allocated -> the undamped modes (l->havemodes: Phi M-orthonormal, lam, cm the diagonal of Phi^T C Phi, P,
 * Po, fcm, fsm), and l->modal set when the damping is diagonal in them (to 1e-9 of the diagonal's geometric mean); 0,
 * or -1 (out of memory); an eigenproblem LAPACK refuses (M not positive definite) leaves l without modes */
static int modal_init(const br_hbm_sys *s, br_hbm_lin *l)
{
    const int n = s->ndof, nl = s->nnl, no = l->nout;
    double *A = malloc((size_t)n * n * sizeof(double)), *B = malloc((size_t)n * n * sizeof(double));
    double *CP = malloc((size_t)n * n * sizeof(double));
    /* (a second call after LAPACK refused the first: its arrays freed before they are made again) */
    free(l->lam), free(l->cm), free(l->fcm), free(l->fsm), free(l->P), free(l->Po), free(l->W), free(l->Hr), free(l->Hi);
    l->lam = malloc((size_t)n * sizeof(double)), l->cm = malloc((size_t)n * sizeof(double));
    l->fcm = malloc((size_t)n * sizeof(double)), l->fsm = malloc((size_t)n * sizeof(double));
    l->P = malloc((size_t)nl * n * sizeof(double) + 8), l->Po = malloc((size_t)no * n * sizeof(double) + 8);
    l->W = malloc((size_t)nl * n * sizeof(double) + 8);
    l->Hr = malloc((size_t)nl * nl * sizeof(double) + 8), l->Hi = malloc((size_t)nl * nl * sizeof(double) + 8);
    int rc = -1;
    if (!A || !B || !CP || !l->lam || !l->cm || !l->fcm || !l->fsm || !l->P || !l->Po || !l->W || !l->Hr || !l->Hi) goto out;
    rc = 0;
    memcpy(A, s->K, (size_t)n * n * sizeof(double)), memcpy(B, s->M, (size_t)n * n * sizeof(double));
    /* A: Phi, M-orthonormal (divide and conquer: at the lap joint's 2689 DOFs a fifth of dsygv's QR iteration) */
    if (LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, 'V', 'U', n, A, n, B, n, l->lam) != 0) goto out;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, s->C, n, A, n, 0.0, B, n);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, CP, n);
    double big = 0.0;
    for (int i = 0; i < n; i++) l->cm[i] = CP[(size_t)i * n + i], big = fmax(big, fabs(l->cm[i]));
    int diag = 1; /* Phi^T C Phi: diagonal? */
    for (int j = 0; j < n && diag; j++)
        for (int i = 0; i < n; i++)
            if (i != j && fabs(CP[(size_t)j * n + i]) > 1e-9 * sqrt(fabs(l->cm[i] * l->cm[j])) + 1e-13 * big) {
                diag = 0;
                break;
            }
    for (int m = 0; m < n; m++) {
        const double *phi = A + (size_t)m * n;
        double fc = 0.0, fs = 0.0;
        for (int a = 0; a < n; a++) fc += phi[a] * s->fc[a], fs += phi[a] * s->fs[a];
        l->fcm[m] = fc, l->fsm[m] = fs;
        for (int i = 0; i < nl; i++) {
            double v = 0.0;
            if (i < s->nnl_dof) v = phi[s->nl[i]];
            else
                for (long e = s->Tp[i - s->nnl_dof]; e < s->Tp[i - s->nnl_dof + 1]; e++) v += s->Tx[e] * phi[s->Tj[e]];
            l->P[(size_t)m * nl + i] = v;
        }
        for (int o = 0; o < no; o++) l->Po[(size_t)m * no + o] = phi[l->out[o]];
    }
    l->modal = diag, l->havemodes = 1, l->Phi = A, A = NULL;
out:
    free(A), free(B), free(CP);
    return rc;
}

int br_hbm_lin_modes(const br_hbm_sys *s, br_hbm_lin *l)
{
    if (l->havemodes) return 0;
    const int rc = modal_init(s, l);
    l->w = 0.0, l->have2 = 0, l->have0 = 0; /* evaluated afresh (on the modal path, when it is one) */
    return rc;
}

double complex br_hbm_lin_modal_d(const br_hbm_lin *l, int k, int m)
{
    const double kw = k * l->w;
    return l->lam[m] - kw * kw + I * kw * (l->cm[m] - l->xi1);
}

int br_hbm_lin_is_split(const br_hbm_lin *l, int m)
{
    for (int j = 0; j < l->nsplit; j++)
        if (l->split[j] == m) return 1;
    return 0;
}

/* l (modal), harmonic k, mode m -> 1 / its modal receptance's denominator, or 0 for a split mode at harmonic 1 */
static double complex modal_r(const br_hbm_lin *l, int k, double w, int m)
{
    if (k == 1 && l->nsplit > 0 && br_hbm_lin_is_split(l, m)) return 0.0;
    const double kw = k * w;
    return 1.0 / (l->lam[m] - kw * kw + I * kw * (l->cm[m] - l->xi1));
}

int br_hbm_lin_init(const br_hbm_sys *s, int H, int nout, const int *out, br_hbm_lin *l)
{
    memset(l, 0, sizeof *l);
    const size_t n = (size_t)s->ndof, nl = (size_t)s->nnl, K = (size_t)H + 1, nrhs = nl + (size_t)nout + 1;
    l->H = H, l->nnl = s->nnl, l->nout = nout, l->ndof = s->ndof;
    l->Hnl = malloc(K * nl * nl * sizeof(double complex) + 1);
    l->Xnl = malloc(K * nl * sizeof(double complex) + 1);
    l->Hout = malloc(K * (size_t)nout * nl * sizeof(double complex) + 1);
    l->Xout = malloc(K * (size_t)nout * sizeof(double complex) + 1);
    l->Hnl2 = malloc(K * nl * nl * sizeof(double complex) + 1);
    l->Xnl2 = malloc(K * nl * sizeof(double complex) + 1);
    l->Hout2 = malloc(K * (size_t)nout * nl * sizeof(double complex) + 1);
    l->Xout2 = malloc(K * (size_t)nout * sizeof(double complex) + 1);
    l->out = malloc(((size_t)nout + 1) * sizeof(int));
    l->Z = malloc(n * n * sizeof(double complex));
    l->B = malloc(n * nrhs * sizeof(double complex));
    l->piv = malloc(n * sizeof(int));
    if (!l->Hnl || !l->Xnl || !l->Hout || !l->Xout || !l->Hnl2 || !l->Xnl2 || !l->Hout2 || !l->Xout2 || !l->out || !l->Z ||
        !l->B || !l->piv) {
        br_hbm_lin_free(l);
        return -1;
    }
    if (nout) memcpy(l->out, out, (size_t)nout * sizeof(int));
    const int rc = s->nif > 0 ? modal_init(s, l) : 0;
    if (rc) {
        br_hbm_lin_free(l);
        return -1;
    }
    return 0;
}

void br_hbm_lin_free(br_hbm_lin *l)
{
    free(l->Hnl), free(l->Xnl), free(l->Hout), free(l->Xout), free(l->out), free(l->Z), free(l->B), free(l->piv);
    free(l->Hnl2), free(l->Xnl2), free(l->Hout2), free(l->Xout2);
    free(l->lam), free(l->cm), free(l->P), free(l->Po), free(l->fcm), free(l->fsm), free(l->W), free(l->Hr), free(l->Hi);
    free(l->Phi), free(l->split), free(l->eta), free(l->sp), free(l->sp2), free(l->Lm), free(l->Zb), free(l->Bb), free(l->pivb);
    memset(l, 0, sizeof *l);
}

/* l (modal), harmonic k >= 1, w, part (0 real, 1 imaginary) -> l->W = P times that part of D = diag(1 / (lam - (k w)^2
 * + i k w c)) */
static void modal_weights(br_hbm_lin *l, int n, int nl, int k, double w, int part)
{
    for (int m = 0; m < n; m++) {
        const double complex d = modal_r(l, k, w, m);
        const double dm = part ? cimag(d) : creal(d);
        for (int i = 0; i < nl; i++) l->W[(size_t)m * nl + i] = l->P[(size_t)m * nl + i] * dm;
    }
}

/* l (modal) with l->W from modal_weights, part -> Hk's part (the real part set, the imaginary one added): P D P^T */
static void modal_block(br_hbm_lin *l, int n, int nl, int part, double complex *Hk)
{
    double *Hp = part ? l->Hi : l->Hr;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nl, nl, n, 1.0, l->W, nl, l->P, nl, 0.0, Hp, nl);
    for (size_t e = 0; e < (size_t)nl * nl; e++) Hk[e] = part ? Hk[e] + I * Hp[e] : Hp[e];
}

/* system, l (modal), harmonic k >= 1, w -> l's block k from the modes: H = P D P^T (not when l->lazy), Hout = Po D P^T,
 * X = P D Phi^T F */
static void modal_eval(const br_hbm_sys *s, br_hbm_lin *l, int k, double w)
{
    const int n = s->ndof, nl = s->nnl, no = l->nout;
    double complex *Hk = l->Hnl + (size_t)k * nl * nl, *Ho = l->Hout + (size_t)k * no * nl;
    double complex *Xk = l->Xnl + (size_t)k * nl, *Xo = l->Xout + (size_t)k * no;
    if (!l->lazy)
        for (int part = 0; part < 2; part++) /* the real and the imaginary part of D */
            modal_weights(l, n, nl, k, w, part), modal_block(l, n, nl, part, Hk);
    /* Hout = Po D P^T (nout x nl), mode by mode over P's columns */
    for (size_t e = 0; e < (size_t)nl * no; e++) Ho[e] = 0.0;
    for (int m = 0; m < n; m++) {
        const double complex d = modal_r(l, k, w, m);
        const double *Pm = l->P + (size_t)m * nl;
        for (int o = 0; o < no; o++) {
            const double complex a = l->Po[(size_t)m * no + o] * d;
            if (a != 0.0)
                for (int j = 0; j < nl; j++) Ho[(size_t)j * no + o] += a * Pm[j];
        }
    }
    for (int i = 0; i < nl; i++) Xk[i] = 0.0;
    for (int o = 0; o < no; o++) Xo[o] = 0.0;
    if (k != 1) return;
    for (int m = 0; m < n; m++) { /* F_1 = fc - i fs */
        const double complex d = (l->fcm[m] - I * l->fsm[m]) * modal_r(l, k, w, m);
        for (int i = 0; i < nl; i++) Xk[i] += l->P[(size_t)m * nl + i] * d;
        for (int o = 0; o < no; o++) Xo[o] += l->Po[(size_t)m * no + o] * d;
    }
}

int br_hbm_lin_eval(const br_hbm_sys *s, double w, br_hbm_lin *l, char *err, size_t errlen)
{
    const int n = s->ndof, nl = s->nnl, no = l->nout, nrhs = nl + no + 1;
#define SWAP(a, b) do { double complex *t_ = (a); (a) = (b); (b) = t_; } while (0)
    SWAP(l->Hnl, l->Hnl2);
    SWAP(l->Xnl, l->Xnl2);
    SWAP(l->Hout, l->Hout2);
    SWAP(l->Xout, l->Xout2);
    SWAP(l->sp, l->sp2);
#undef SWAP
    const double wprev = l->w, wold = l->w2, xprev = l->xi1, xold = l->xi2;
    const int had = l->have2;
    l->have2 = wprev > 0.0, l->w2 = wprev, l->w = w, l->xi2 = xprev, l->xi1 = l->xi;
    if (had && w == wold && l->xi == xold) return 0; /* the blocks swapped in are (w, xi)'s */
    for (int k = l->modal && l->have0 ? 1 : 0; k <= l->H; k++) {
        const double kw = k * w;
        if (l->modal && k > 0) {
            modal_eval(s, l, k, w);
            if (k == 1 && l->nsplit > 0) br_hbm_lin_split_modal(s, l);
            continue;
        }
        br_hbm_dynamic_stiffness(s, kw, k == 0, l->Z);
        if (l->xi1 != 0.0 && k > 0) /* the extended periodic motion's negative damping: C - xi M */
            for (size_t e = 0; e < (size_t)n * n; e++) l->Z[e] -= I * kw * l->xi1 * s->M[e];
        if (k == 1 && l->nsplit > 0) {
            const int src = br_hbm_lin_split_lu(s, l, l->Z);
            if (src) {
                snprintf(err, errlen, "hbm: the dynamic stiffness of harmonic 1 bordered by %d modes is singular at %.9g Hz",
                         l->nsplit, w / (2 * M_PI));
                l->w = 0.0, l->have2 = 0; /* half-built blocks: evaluated afresh at the next call */
            return -1;
            }
            continue;
        }
        memset(l->B, 0, (size_t)n * nrhs * sizeof(double complex));
        for (int j = 0; j < nl; j++) br_hbm_coord_add(s, j, 1.0, l->B + (size_t)j * n);
        for (int j = 0; j < no; j++) l->B[(size_t)(nl + j) * n + l->out[j]] = 1.0;
        double complex *F = l->B + (size_t)(nl + no) * n;
        for (int a = 0; a < n; a++) F[a] = k == 0 ? s->f0[a] : k == 1 ? s->fc[a] - I * s->fs[a] : 0.0;
        const lapack_int info = LAPACKE_zgesv(LAPACK_COL_MAJOR, n, nrhs, l->Z, n, l->piv, l->B, n);
        if (info != 0) {
            snprintf(err, errlen, "hbm: the dynamic stiffness of harmonic %d is singular at %.9g Hz (zgesv info %d)%s",
                     k, w / (2 * M_PI), (int)info,
                     k == 0 ? ": a DOF without static stiffness (a free body held by nothing but friction?)" : "");
            l->w = 0.0, l->have2 = 0; /* half-built blocks: evaluated afresh at the next call */
            return -1;
        }
        double complex *Hk = l->Hnl + (size_t)k * nl * nl, *Ho = l->Hout + (size_t)k * no * nl;
        for (int j = 0; j < nl; j++) {
            for (int i = 0; i < nl; i++) Hk[(size_t)j * nl + i] = br_hbm_coord(s, i, l->B + (size_t)j * n);
            for (int o = 0; o < no; o++) Ho[(size_t)j * no + o] = l->B[(size_t)j * n + l->out[o]];
        }
        for (int i = 0; i < nl; i++) l->Xnl[(size_t)k * nl + i] = br_hbm_coord(s, i, F);
        for (int o = 0; o < no; o++) l->Xout[(size_t)k * no + o] = F[l->out[o]];
        if (k == 0 && l->modal) { /* the bonded static block, the same at every w: in both buffers */
            l->have0 = 1;
            memcpy(l->Hnl2, l->Hnl, (size_t)nl * nl * sizeof(double complex));
            memcpy(l->Xnl2, l->Xnl, (size_t)nl * sizeof(double complex));
            memcpy(l->Hout2, l->Hout, (size_t)no * nl * sizeof(double complex));
            memcpy(l->Xout2, l->Xout, (size_t)no * sizeof(double complex));
        }
    }
    return 0;
}

void br_hbm_lin_block(const br_hbm_sys *s, br_hbm_lin *l, int k, double complex *Hk)
{
    const int n = s->ndof, nl = s->nnl;
    if (!l->modal || k == 0 || !l->lazy) {
        memcpy(Hk, l->Hnl + (size_t)k * nl * nl, (size_t)nl * nl * sizeof(double complex));
        return;
    }
    for (int part = 0; part < 2; part++) modal_weights(l, n, nl, k, l->w, part), modal_block(l, n, nl, part, Hk);
}

void br_hbm_lin_apply(const br_hbm_sys *s, const br_hbm_lin *l, const double complex *x, double complex *y, double *work)
{
    const int n = s->ndof, nl = s->nnl, H = l->H;
    const double complex one = 1.0, zero = 0.0;
    for (int k = 0; k <= H; k++)
        if (k == 0 || !l->modal)
            cblas_zgemv(CblasColMajor, CblasNoTrans, nl, nl, &one, l->Hnl + (size_t)k * nl * nl, nl, x + (size_t)k * nl, 1,
                        &zero, y + (size_t)k * nl, 1);
    if (!l->modal || H == 0) return;
    /* k >= 1 together: X (2H x nl, column-major: per coordinate its harmonics' real and imaginary parts) times P^T
     * gives the modal forces (2H x n), each scaled by its harmonic's modal receptance, times P the displacements */
    const int r = 2 * H;
    double *X = work, *Tm = work + (size_t)r * nl;
    for (int i = 0; i < nl; i++)
        for (int k = 1; k <= H; k++) X[(size_t)i * r + 2 * (k - 1)] = creal(x[(size_t)k * nl + i]), X[(size_t)i * r + 2 * (k - 1) + 1] = cimag(x[(size_t)k * nl + i]);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r, n, nl, 1.0, X, r, l->P, nl, 0.0, Tm, r);
    for (int m = 0; m < n; m++)
        for (int k = 1; k <= H; k++) {
            double *t = Tm + (size_t)m * r + 2 * (k - 1);
            const double complex v = (t[0] + I * t[1]) * modal_r(l, k, l->w, m);
            t[0] = creal(v), t[1] = cimag(v);
        }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, r, nl, n, 1.0, Tm, r, l->P, nl, 0.0, X, r);
    for (int i = 0; i < nl; i++)
        for (int k = 1; k <= H; k++) y[(size_t)k * nl + i] = X[(size_t)i * r + 2 * (k - 1)] + I * X[(size_t)i * r + 2 * (k - 1) + 1];
}

size_t br_hbm_lin_apply_work(const br_hbm_sys *s, const br_hbm_lin *l)
{
    return (size_t)2 * l->H * ((size_t)s->nnl + (size_t)s->ndof) + 1;
}
