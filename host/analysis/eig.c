/* eig.c: natural frequencies from the generalized symmetric eigenproblem
 * K phi = w^2 M phi (LAPACK dsygv: Cholesky of M, then a symmetric eigensolver).
 * --contacts free: the structure alone. --contacts bonded: every contact point
 * whose two frames belong to the structure (or the ground) becomes a spring with
 * its normal contact stiffness dN/ddelta = pK K delta^(pK-1) along the normal and a
 * stuck point's tangential stiffness (br_law_stick_stiffness of the law table: sigma0 N
 * for lugre3d) in the tangent plane, at the state the scenario reaches at --at T
 * (default: time.end), so the preload is whatever the scenario's loads produce by then. */
#include "analysis/eig.h"
#include "base/parse.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "step/sim.h"

int br_eig_frequencies(const br_struct *s, const double *Kextra, double *f, char *err, size_t errlen)
{
    const int n = s->ndof;
    const size_t nn = (size_t)n * (size_t)n;
    double *A = malloc(nn * sizeof(double)), *B = malloc(nn * sizeof(double));
    if (!A || !B) {
        free(A), free(B);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < nn; k++) A[k] = s->K[k] + (Kextra ? Kextra[k] : 0.0), B[k] = s->M[k];
    const lapack_int info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, A, n, B, n, f);
    free(A), free(B);
    if (info != 0) {
        snprintf(err, errlen, "dsygv failed (info %d): %s", (int)info,
                 info > n ? "the mass matrix is not positive definite (a DOF without mass?)" : "no convergence");
        return -1;
    }
    for (int k = 0; k < n; k++) f[k] = f[k] > 0 ? sqrt(f[k]) / (2 * M_PI) : 0.0;
    return 0;
}

/* set, point i at normal force N > 0 -> its bonded springs: the normal kn (N = K delta^pK static:
 * dN/ddelta = pK N / delta, delta = (N / K)^(1/pK)) and the stuck tangential kt */
static void point_springs(const br_contact_set_desc *cs, long i, double N, double *kn, double *kt)
{
    const double K = cs->K ? cs->K[i] : cs->K0;
    const double delta = pow(N / K, 1.0 / cs->normal.pK);
    *kn = cs->normal.pK * N / delta;
    *kt = br_law_stick_stiffness(cs->law, &cs->fric, N, K);
}

/* model, data at the linearisation state -> Kc (contact stiffness, column-major) added */
static int contact_stiffness(const br_model *m, br_data *d, const br_struct *s, double *Kc, char *err,
                             size_t errlen)
{
    const int n = s->ndof;
    double *scratch = malloc((size_t)n * 9 * sizeof(double));
    int rc = scratch ? 0 : -1;
    if (!scratch) snprintf(err, errlen, "out of memory");
    for (int c = 0; c < m->nset && rc == 0; c++) {
        const br_cset *C = &m->cset[c];
        const br_contact_set_desc *cs = &C->desc;
        const int na = cs->iface ? -1 : br_struct_frame_node(m, s, cs->frame_a);
        const int nb = cs->iface ? -1 : br_struct_frame_node(m, s, cs->frame_b);
        if (na == -2 || nb == -2) {
            snprintf(err, errlen, "contact set '%s': bonded eigenanalysis needs both frames on the structure "
                                  "or the ground", C->name);
            rc = -1;
            break;
        }
        const long np = cs->npoints;
        double *F = malloc((size_t)np * 4 * sizeof(double));
        if (!F || br_field_points(d->field, c, F, F + 3 * np)) {
            snprintf(err, errlen, "contact set '%s': %s", C->name,
                     !F ? "out of memory" : "the contact field recorded no per-point forces (out of memory)");
            free(F);
            rc = -1;
            break;
        }
        const br_frame_state *A = &d->frames[cs->frame_a], *B = &d->frames[cs->frame_b];
        double nw[3];
        br_mat3_vec(B->R, cs->plane_n, nw);
        for (long i = 0; i < np; i++) {
            const double N = F[3 * np + i];
            if (!(N > 0)) continue;
            double kn, kt;
            point_springs(cs, i, N, &kn, &kt);
            if (cs->iface) { /* a deforming interface: L_i^T diag(kt, kt, kn) L_i (its frame's axes) */
                const int r0 = s->row0[C->ipart - m->nbeam];
                const double S[3] = {kt, kt, kn};
                for (int j = 0; j < 3; j++)
                    for (long e = C->Lp[3 * i + j]; e < C->Lp[3 * i + j + 1]; e++)
                        for (long f = C->Lp[3 * i + j]; f < C->Lp[3 * i + j + 1]; f++)
                            Kc[(size_t)(r0 + C->Lj[f]) * n + r0 + C->Lj[e]] += S[j] * C->Lx[e] * C->Lx[f];
                continue;
            }
            const double *r = cs->r + 3 * i;
            double p[3];
            br_mat3_vec(A->R, r, p);
            for (int j = 0; j < 3; j++) p[j] += A->x[j];
            /* spring S = kn n n^T + kt (I - n n^T) on the relative displacement pA - pB */
            double S[9];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) S[3 * a + b] = kn * nw[a] * nw[b] + kt * ((a == b) - nw[a] * nw[b]);
            br_struct_add_link(s, na, nb, p, S, Kc, scratch);
        }
        free(F);
    }
    free(scratch);
    return rc;
}

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle eig SCENARIO.yaml [--contacts free|bonded] [--at T] [--set KEY=VALUE]...\n"
               "  natural frequencies (Hz) of the beams and the bodies attached to them, lowest first\n"
               "  bonded: contacts become springs (normal stiffness and stuck bristle) at the state\n"
               "          the scenario reaches at time T (default: time.end)\n");
    return o == stderr ? 2 : 0;
}

int br_eig_main(int argc, char **argv)
{
    const char *scen = NULL, *sets[256];
    int nsets = 0, bonded = 0;
    double at = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout);
        if ((!strcmp(a, "--contacts") || !strcmp(a, "--at") || !strcmp(a, "--set")) && i + 1 >= argc) {
            fprintf(stderr, "bristle eig: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--contacts")) {
            const char *v = argv[++i];
            if (!strcmp(v, "bonded")) bonded = 1;
            else if (strcmp(v, "free")) {
                fprintf(stderr, "bristle eig: --contacts must be free or bonded (got '%s')\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--at")) {
            if (br_arg_double("eig", "--at", argv[++i], 0.0, 1e12, &at)) return 2;
        } else if (!strcmp(a, "--set") && nsets < 256) sets[nsets++] = argv[++i];
        else if (a[0] == '-') {
            fprintf(stderr, "bristle eig: unknown option '%s'\n", a);
            return usage(stderr);
        } else if (scen) {
            fprintf(stderr, "bristle eig: one scenario at a time (got '%s' and '%s')\n", scen, a);
            return 2;
        } else scen = a;
    }
    if (!scen) return usage(stderr);
    char err[2048];
    br_model *m = br_scenario_load(scen, sets, nsets, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    br_struct *s = br_struct_build(m, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s:1: %s\n", scen, m->nbeam + m->nsup ? err : "no beams or structures: nothing to analyse");
        br_model_free(m);
        return 2;
    }
    double *f = malloc((size_t)(s->ndof ? s->ndof : 1) * sizeof(double));
    double *Kc = NULL;
    int rc = 0;
    if (!f) rc = -1, snprintf(err, sizeof err, "out of memory");
    if (rc == 0 && bonded && m->nset > 0) {
        br_data *d = br_data_create(m, BR_BACKEND_CPU, err, sizeof err);
        const double T = at >= 0 ? at : m->t_end;
        const long nsteps = (long)nearbyint(T / m->dt);
        for (long k = 0; d && k < nsteps && rc == 0; k++) rc = br_step(m, d, err, sizeof err);
        if (d && rc == 0) {
            br_fwd_frames(m, d);
            br_field_record_points(d->field, 1);
            rc = br_fwd_contacts(m, d, m->dt, err, sizeof err);
            Kc = calloc((size_t)s->ndof * (size_t)s->ndof, sizeof(double));
            if (rc == 0 && !Kc) rc = -1, snprintf(err, sizeof err, "out of memory");
            if (rc == 0) rc = contact_stiffness(m, d, s, Kc, err, sizeof err);
        }
        if (!d) rc = -1;
        br_data_free(d);
    }
    if (rc == 0) rc = br_eig_frequencies(s, Kc, f, err, sizeof err);
    if (rc == 0)
        for (int k = 0; k < s->ndof; k++) printf("%.6g\n", f[k]);
    else fprintf(stderr, "bristle eig: %s\n", err);
    free(f), free(Kc);
    br_struct_free(s);
    br_model_free(m);
    return rc ? 1 : 0;
}
