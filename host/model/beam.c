/* beam.c: Euler-Bernoulli 3D frame elements and assembly of the structure.
 *
 * Element (local x along the element, y along the section side b, z = x cross y),
 * DOFs per node (u, v, w, theta_x, theta_y, theta_z):
 *   axial      EA/L, consistent mass rho A L / 6 [2 1; 1 2]
 *   torsion    G J/L, rotary mass rho (I_y + I_z) L / 6 [2 1; 1 2]
 *   bending    in x-y (v, theta_z) with I_z = t b^3 / 12, in x-z (w, theta_y) with
 *              I_y = b t^3 / 12: the cubic Hermite stiffness E I / L^3 [12 6L ...]
 *              and consistent mass rho A L / 420 [156 22L 54 -13L ...]
 * Torsion constant of the rectangle (Roark): J = a c^3 (1/3 - 0.21 (c/a)(1 - (c/a)^4 / 12)),
 * a >= c the sides. Rotary inertia of the bending cross-section is neglected (Euler-
 * Bernoulli). Global matrices: T^T k T with T = diag(L, L, L, L), L the local axes. */
#include "model/beam.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rigid.h"
#include "kernels/struct_body.h"


void br_beam_element(double E, double nu, double rho, double b, double t, const double e[3],
                     const double w[3], double L, double Kg[144], double Mg[144])
{
    const double A = b * t, Iz = t * b * b * b / 12.0, Iy = b * t * t * t / 12.0;
    const double a = fmax(b, t), c = fmin(b, t), r = c / a;
    const double J = a * c * c * c * (1.0 / 3.0 - 0.21 * r * (1.0 - r * r * r * r / 12.0));
    const double G = E / (2.0 * (1.0 + nu));
    double k[144] = {0}, m[144] = {0};
#define K(i, j) k[12 * (i) + (j)]
#define M(i, j) m[12 * (i) + (j)]
    /* axial u: 0, 6; torsion: 3, 9 */
    const double ka = E * A / L, kt = G * J / L, ma = rho * A * L / 6.0, mt = rho * (Iy + Iz) * L / 6.0;
    K(0, 0) = K(6, 6) = ka, K(0, 6) = K(6, 0) = -ka;
    K(3, 3) = K(9, 9) = kt, K(3, 9) = K(9, 3) = -kt;
    M(0, 0) = M(6, 6) = 2 * ma, M(0, 6) = M(6, 0) = ma;
    M(3, 3) = M(9, 9) = 2 * mt, M(3, 9) = M(9, 3) = mt;
    /* bending: (v1, tz1, v2, tz2) = (1, 5, 7, 11) with +; (w1, ty1, w2, ty2) = (2, 4, 8, 10) with - */
    const double kb[4][4] = {{12, 6 * L, -12, 6 * L},
                             {6 * L, 4 * L * L, -6 * L, 2 * L * L},
                             {-12, -6 * L, 12, -6 * L},
                             {6 * L, 2 * L * L, -6 * L, 4 * L * L}};
    const double mb[4][4] = {{156, 22 * L, 54, -13 * L},
                             {22 * L, 4 * L * L, 13 * L, -3 * L * L},
                             {54, 13 * L, 156, -22 * L},
                             {-13 * L, -3 * L * L, -22 * L, 4 * L * L}};
    const int iv[4] = {1, 5, 7, 11}, iw[4] = {2, 4, 8, 10};
    const double sw[4] = {1, -1, 1, -1}; /* theta_y = -dw/dx: flip the rotation rows/columns */
    const double cz = E * Iz / (L * L * L), cy = E * Iy / (L * L * L), cm = rho * A * L / 420.0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            K(iv[i], iv[j]) = cz * kb[i][j];
            M(iv[i], iv[j]) = cm * mb[i][j];
            K(iw[i], iw[j]) = cy * kb[i][j] * sw[i] * sw[j];
            M(iw[i], iw[j]) = cm * mb[i][j] * sw[i] * sw[j];
        }
#undef K
#undef M
    /* local axes as rows of Lam: x = e, y = w, z = e x w */
    double z[3];
    br_cross3(e, w, z);
    const double Lam[9] = {e[0], e[1], e[2], w[0], w[1], w[2], z[0], z[1], z[2]};
    /* global = T^T local T, T block-diagonal with Lam: g_ij = sum_ab T_ai l_ab T_bj */
    double T[144] = {0};
    for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) T[12 * (3 * blk + i) + 3 * blk + j] = Lam[3 * i + j];
    double tmpk[144], tmpm[144];
    for (int a2 = 0; a2 < 12; a2++)
        for (int j = 0; j < 12; j++) {
            double sk = 0, sm = 0;
            for (int b2 = 0; b2 < 12; b2++) sk += k[12 * a2 + b2] * T[12 * b2 + j], sm += m[12 * a2 + b2] * T[12 * b2 + j];
            tmpk[12 * a2 + j] = sk, tmpm[12 * a2 + j] = sm;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            double sk = 0, sm = 0;
            for (int a2 = 0; a2 < 12; a2++) sk += T[12 * a2 + i] * tmpk[12 * a2 + j], sm += T[12 * a2 + i] * tmpm[12 * a2 + j];
            Kg[12 * i + j] = sk, Mg[12 * i + j] = sm;
        }
}

void br_struct_free(br_struct *s)
{
    if (!s) return;
    free(s->node0), free(s->row0), free(s->dof), free(s->X), free(s->M), free(s->C), free(s->K);
    free(s);
}

/* model, with_bodies -> the structure of every part (beams, then the structures given as matrices), with
 * the attached bodies' mass (with_bodies) or without (the parts' own matrices, export-structure) */
static br_struct *build(const br_model *m, int with_bodies, char *err, size_t errlen)
{
    const int nparts = m->nbeam + m->nsup;
    if (nparts == 0) return NULL;
    br_struct *s = calloc(1, sizeof *s);
    if (s) s->node0 = calloc((size_t)nparts, sizeof(int)), s->row0 = calloc((size_t)m->nsup + 1, sizeof(int));
    if (!s || !s->node0 || !s->row0) {
        snprintf(err, errlen, "out of memory assembling the structure");
        br_struct_free(s);
        return NULL;
    }
    for (int b = 0; b < m->nbeam; b++) s->node0[b] = s->nnode, s->nnode += m->beam[b].nnode;
    for (int k = 0; k < m->nsup; k++) s->node0[m->nbeam + k] = s->nnode, s->nnode += m->sup[k].nnode;
    s->dof = malloc((size_t)s->nnode * 6 * sizeof(int));
    s->X = malloc((size_t)s->nnode * 3 * sizeof(double));
    if (!s->dof || !s->X) {
        snprintf(err, errlen, "out of memory assembling the structure");
        br_struct_free(s);
        return NULL;
    }
    for (int b = 0; b < m->nbeam; b++)
        for (int k = 0; k < m->beam[b].nnode; k++) {
            const int n = s->node0[b] + k;
            memcpy(s->X + 3 * n, m->beam[b].X + 3 * k, sizeof(double[3]));
            for (int j = 0; j < 6; j++) s->dof[6 * n + j] = (m->beam[b].fix[k] >> j) & 1 ? -1 : s->ndof++;
        }
    /* a structure given as matrices: its coordinates after the beams', in its own order */
    for (int p = 0; p < m->nsup; p++) {
        const br_superel *S = &m->sup[p];
        for (int k = 0; k < S->nnode; k++) {
            const int n = s->node0[m->nbeam + p] + k;
            memcpy(s->X + 3 * n, S->X + 3 * k, sizeof(double[3]));
            for (int j = 0; j < 6; j++) s->dof[6 * n + j] = S->row[6 * k + j] < 0 ? -1 : s->ndof + S->row[6 * k + j];
        }
        s->row0[p] = s->ndof;
        s->ndof += S->n;
    }
    const size_t nn = (size_t)s->ndof * (size_t)s->ndof;
    s->M = calloc(nn ? nn : 1, sizeof(double));
    s->C = calloc(nn ? nn : 1, sizeof(double));
    s->K = calloc(nn ? nn : 1, sizeof(double));
    if (!s->M || !s->C || !s->K) {
        snprintf(err, errlen, "out of memory assembling the structure");
        br_struct_free(s);
        return NULL;
    }
    const int N = s->ndof;
    for (int b = 0; b < m->nbeam; b++) {
        const br_beam *B = &m->beam[b];
        for (int k = 0; k + 1 < B->nnode; k++) {
            const double *x1 = B->X + 3 * k, *x2 = B->X + 3 * k + 3;
            double e[3] = {x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]};
            const double L = br_norm3(e);
            for (int j = 0; j < 3; j++) e[j] /= L;
            double Ke[144], Me[144];
            br_beam_element(B->E, B->nu, B->rho, B->b, B->t, e, B->width, L, Ke, Me);
            const int n1 = s->node0[b] + k;
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 12; j++) {
                    const int gi = s->dof[6 * n1 + i], gj = s->dof[6 * n1 + j];
                    if (gi < 0 || gj < 0) continue;
                    s->K[(size_t)gj * N + gi] += Ke[12 * i + j];
                    s->M[(size_t)gj * N + gi] += Me[12 * i + j];
                    s->C[(size_t)gj * N + gi] += B->ray_a * Me[12 * i + j] + B->ray_b * Ke[12 * i + j];
                }
        }
    }
    for (int p = 0; p < m->nsup; p++) {
        const br_superel *S = &m->sup[p];
        const int o = s->row0[p];
        for (int j = 0; j < S->n; j++)
            for (int i = 0; i < S->n; i++) {
                const size_t g = (size_t)(o + j) * N + (size_t)(o + i), l = (size_t)j * S->n + i;
                s->M[g] = S->M[l], s->C[g] = S->C[l], s->K[g] = S->K[l];
            }
    }
    if (!with_bodies) return s;
    /* attached rigid bodies: CoM at node + o, v_cm = udot - [o x] thetadot:
     * M_uu = m I, M_ut = -m [o x], M_tt = J + m [o x]^T [o x] (no Rayleigh damping on them) */
    for (int bi = 0; bi < m->nbody; bi++) {
        const br_body *B = &m->body[bi];
        if (B->part < 0) continue;
        const int n = s->node0[B->part] + B->node;
        double R[9], J[9], ox[9];
        br_quat_to_R(B->q0, R);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0;
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++) v += R[3 * i + a] * B->Ib[3 * a + c] * R[3 * j + c];
                J[3 * i + j] = v;
            }
        const double *o = B->offset;
        const double oxv[9] = {0, -o[2], o[1], o[2], 0, -o[0], -o[1], o[0], 0};
        memcpy(ox, oxv, sizeof ox);
        double mb[36] = {0};
        for (int i = 0; i < 3; i++) {
            mb[6 * i + i] = B->mass;
            for (int j = 0; j < 3; j++) {
                mb[6 * i + 3 + j] = -B->mass * ox[3 * i + j];
                double oo = 0;
                for (int a = 0; a < 3; a++) oo += ox[3 * a + i] * ox[3 * a + j];
                mb[6 * (3 + i) + 3 + j] = J[3 * i + j] + B->mass * oo;
            }
        }
        /* symmetric: M_tu = M_ut^T = -m [o x]^T = m [o x] */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) mb[6 * (3 + i) + j] = mb[6 * j + 3 + i];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                const int gi = s->dof[6 * n + i], gj = s->dof[6 * n + j];
                if (gi >= 0 && gj >= 0) s->M[(size_t)gj * N + gi] += mb[6 * i + j];
            }
    }
    return s;
}

br_struct *br_struct_build(const br_model *m, char *err, size_t errlen)
{
    return build(m, 1, err, errlen);
}

br_struct *br_struct_build_bare(const br_model *m, char *err, size_t errlen)
{
    return build(m, 0, err, errlen);
}

void br_struct_body_frame(const br_struct *s, const br_body *b, int node, const double *u,
                          const double *v, br_frame_state *out)
{
    br_sb_body_frame(s->dof, s->X, node, b->q0, b->offset, u, 1, v, 1, out);
}

void br_struct_add_force(const br_struct *s, int node, const double xnode[3], const double f[3],
                         const double p[3], double *g)
{
    br_sb_add_force(s->dof, node, xnode, f, p, g, 1);
}

void br_struct_add_torque(const br_struct *s, int node, const double tau[3], double *g)
{
    br_sb_add_torque(s->dof, node, tau, g, 1);
}

/* node (or -1), world point p -> G (3 x ndof, column k = DOF k): displacement of p per DOF,
 * u + theta x (p - x_node) */
static void point_map(const br_struct *s, int node, const double p[3], double *G)
{
    memset(G, 0, (size_t)s->ndof * 3 * sizeof(double));
    if (node < 0) return;
    const double r[3] = {p[0] - s->X[3 * node], p[1] - s->X[3 * node + 1], p[2] - s->X[3 * node + 2]};
    for (int j = 0; j < 3; j++) {
        const int gu = s->dof[6 * node + j], gt = s->dof[6 * node + 3 + j];
        if (gu >= 0) G[3 * gu + j] = 1.0;
        if (gt < 0) continue;
        double e[3] = {0, 0, 0}, c[3];
        e[j] = 1.0;
        br_cross3(e, r, c); /* theta_j e_j x r */
        for (int i = 0; i < 3; i++) G[3 * gt + i] = c[i];
    }
}

void br_struct_add_link(const br_struct *s, int node_a, int node_b, const double p[3], const double S[9],
                        double *A, double *scratch)
{
    const int n = s->ndof;
    double *Ga = scratch, *Gb = scratch + 3 * n, *D = scratch + 6 * n;
    point_map(s, node_a, p, Ga);
    point_map(s, node_b, p, Gb);
    for (int k = 0; k < 3 * n; k++) D[k] = Ga[k] - Gb[k];
    for (int a = 0; a < n; a++) {
        const double *Da = D + 3 * a;
        if (Da[0] == 0 && Da[1] == 0 && Da[2] == 0) continue;
        double SD[3];
        for (int i = 0; i < 3; i++) SD[i] = S[3 * i] * Da[0] + S[3 * i + 1] * Da[1] + S[3 * i + 2] * Da[2];
        for (int b = 0; b < n; b++)
            A[(size_t)a * n + b] += D[3 * b] * SD[0] + D[3 * b + 1] * SD[1] + D[3 * b + 2] * SD[2];
    }
}

int br_struct_twist_rows(const br_struct *s, int node_a, int node_b, const double p[3], double *L)
{
    const int n = s->ndof;
    double *Ga = malloc((size_t)6 * n * sizeof(double));
    if (!Ga) return -1;
    double *Gb = Ga + 3 * n;
    point_map(s, node_a, p, Ga);
    point_map(s, node_b, p, Gb);
    memset(L, 0, (size_t)6 * n * sizeof(double));
    for (int k = 0; k < n; k++)
        for (int j = 0; j < 3; j++) L[(size_t)j * n + k] = Ga[3 * k + j] - Gb[3 * k + j];
    free(Ga);
    for (int side = 0; side < 2; side++) { /* angular velocity: the node rotation rates */
        const int k = side == 0 ? node_a : node_b;
        for (int j = 0; k >= 0 && j < 3; j++) {
            const int gt = s->dof[6 * k + 3 + j];
            if (gt >= 0) L[(size_t)(3 + j) * n + gt] += side == 0 ? 1.0 : -1.0;
        }
    }
    return 0;
}

int br_struct_frame_node(const br_model *m, const br_struct *s, int frame)
{
    if (frame == 0) return -1;
    if (frame < 1 || frame > m->nbody || m->body[frame - 1].part < 0) return -2;
    const br_body *B = &m->body[frame - 1];
    return s->node0[B->part] + B->node;
}
