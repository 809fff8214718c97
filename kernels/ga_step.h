/* ga_step.h: one generalized-alpha step of the linear structure with the contacts' low-rank
 * term, written once for the CPU (host/step/genalpha.c, one variant, contiguous arrays) and for
 * batches of variants (host/step/ga_batch.c, kernels/ga_cuda.cu: one thread a variant, the variant
 * the innermost index). The formulas are those of host/step/genalpha.c's header comment:
 *   rhs = f - am M a0 - C [v0 + (1-af) h (1-gamma) a0] - K [u0 + (1-af)(h v0 + h^2 (1/2-beta) a0)]
 *         + L^T E L a0,
 *   x0 = Keff^-1 rhs,  (I + E Y) q = E L x0,  a1 = x0 - Z q   (Woodbury, E block diagonal).
 * Every array of a variant is a pointer and a stride: entry k of an array is p[k * s]. One
 * variant's own arrays have stride 1; in a batch of V variants stored variant-innermost, entry k
 * of variant v is base[k V + v], so the pointer is base + v and the stride V; a matrix all the
 * variants share has its own pointer and stride 1. The same operations run in the same order
 * whatever the strides, so a variant's result is bitwise the same in every layout and on both
 * backends (nvcc with -fmad=false, as the point steps). Nothing here allocates.
 *
 * Lanes (the CPU's batch, issue 54): the functions named _l take nl consecutive variants of a batch
 * stored variant-innermost, every matrix one copy a variant (br_ga_batch_create_opt's share 0),
 * through lane 0's br_ga_var: lane l's entry k is p[k s + l]. Every lane does the operations of the
 * one-variant code in its order (the lane loop innermost, where a CPU's vector instructions take
 * eight variants at once), so a lane's result is bitwise that variant's own; nl = 1 is that code
 * (the names without _l, which the GPU's thread-a-variant kernels and the single runs call). */
#ifndef BR_GA_STEP_H
#define BR_GA_STEP_H

#include "br_hd.h"

/* what every variant of a batch shares: sizes, coefficients and sparsity (genalpha.h) */
typedef struct br_ga_shape {
    int n, nr;                 /* free DOFs; rank of the low-rank term (a multiple of 6, 0: none) */
    double am, af, gamma, beta, h;
    const int *plo, *phi;      /* per column: rows where M, C or K is nonzero */
    const int *flo, *fhi;      /* ... where Keff^-1 is */
    const int *Lcol, *Lcnt;    /* per row of L: its nonzero columns (n slots a row), their count */
    const int *zlo, *zhi;      /* per column of Z: its nonzero rows */
    const int *pcol, *fcol;    /* per column j: where M's, C's and K's entry (0, j) would be, so that
                                * (i, j) of the profile is at pcol[j] + i (a batch stores the profiles
                                * packed, column after column); likewise Keff^-1's; NULL: n x n
                                * column-major, j n */
    int sym;                   /* 1: M, C and K are symmetric entry for entry (Keff^-1 always is: it is
                                * mirrored), and the step's products read each column from its diagonal
                                * down only, half the matrices' traffic (br_ga_symv_l); 0: whole columns */
} br_ga_shape;

/* shape, column j -> the storage index of M's, C's and K's entry (0, j); of Keff^-1's */
BR_HD long br_ga_pcol(const br_ga_shape *g, int j) { return g->pcol ? (long)g->pcol[j] : (long)j * g->n; }
BR_HD long br_ga_fcol(const br_ga_shape *g, int j) { return g->fcol ? (long)g->fcol[j] : (long)j * g->n; }

/* one variant's matrices (read only) and state (read and written), each with its stride */
typedef struct br_ga_var {
    const double *M, *C, *K;   /* on their profile (br_ga_shape's pcol) */
    const double *Lf;          /* Keff^-1 on its profile (fcol) */
    const double *L;           /* nr x n row-major */
    const double *Z, *Y;       /* n x nr and nr x nr column-major */
    long sM, sC, sK, sLf, sL, sZ, sY;
    double *u, *v, *a, *a1;    /* state at t_n (n each) and the solved acceleration */
    double *r, *w;             /* scratch, n each */
    double *ye, *yq, *Ar;      /* scratch: nr, nr, nr x nr */
    long s;                    /* stride of the state and scratch arrays */
} br_ga_var;

#define BR_GA(p, k, st) ((p)[(long)(k) * (st)])
/* lane l of entry k */
#define BR_GL(p, k, st, l) ((p)[(long)(k) * (st) + (l)])
/* the most lanes a call takes: eight doubles, an AVX-512 register */
#define BR_GA_LANES 8

/* shape, variant at t_n, column j -> the factors of M, C and K's column j in the right-hand side:
 * mj = am a_j, wj = v_j + (1-af) h (1-gamma) a_j, uj = u_j + (1-af)(h v_j + h^2 (1/2-beta) a_j) */
BR_HD void br_ga_rhs_factors_l(const br_ga_shape *g, const br_ga_var *x, int j, int l, double *mj, double *wj,
                               double *uj)
{
    const long s = x->s;
    const double h = g->h, am = g->am, af = g->af, ga = g->gamma, be = g->beta;
    const double aj = BR_GL(x->a, j, s, l), vj = BR_GL(x->v, j, s, l), u0 = BR_GL(x->u, j, s, l);
    *mj = am * aj, *wj = vj + (1 - af) * h * (1 - ga) * aj;
    *uj = u0 + (1 - af) * (h * vj + h * h * (0.5 - be) * aj);
}

BR_HD void br_ga_rhs_factors(const br_ga_shape *g, const br_ga_var *x, int j, double *mj, double *wj, double *uj)
{
    br_ga_rhs_factors_l(g, x, j, 0, mj, wj, uj);
}

/* shape, variant at t_n, storage index o of column j (br_ga_pcol), row i, lane l -> M_ij m_i + C_ij w_i + K_ij u_i
 * with row i's factors (br_ga_rhs_factors_l): column j's entry used as row j's, as a symmetric product does */
BR_HD double br_ga_rhs_term_l(const br_ga_shape *g, const br_ga_var *x, long o, int i, int l)
{
    double m, w, u;
    br_ga_rhs_factors_l(g, x, i, l, &m, &w, &u);
    return BR_GL(x->M, o + i, x->sM, l) * m + BR_GL(x->C, o + i, x->sC, l) * w + BR_GL(x->K, o + i, x->sK, l) * u;
}

/* rhs (a constant at every call: the sums below are two functions after inlining), the term of row i, lane l of
 * those sums -> A_(o+i) x_i (stride sa, sx; rhs 0), or br_ga_rhs_term_l of g and xv (rhs 1) */
BR_HD double br_ga_dot_term(int rhs, const br_ga_shape *g, const br_ga_var *xv, const double *A, long sa, long o,
                            const double *x, long sx, int i, int l)
{
    return rhs ? br_ga_rhs_term_l(g, xv, o, i, l) : BR_GL(A, o + i, sa, l) * BR_GL(x, i, sx, l);
}

/* rhs, rows lo..hi of br_ga_dot_term (lane 0) -> their sum: eight partial sums over the whole blocks of eight rows, row
 * lo + 8 b + k into sum k, added pairwise ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), then the last rows' sum
 * in row order. A fixed order, the same in every layout and on both backends; eight chains of adds where one chain
 * in row order made a column's sum wait on the add's latency (the Rayleigh loss's pass over C was 27 % of a 769-DOF
 * superelement's step, four times its memory traffic). Named scalars, no array: nothing of it on the stack */
BR_HD double br_ga_dot8_of(int rhs, const br_ga_shape *g, const br_ga_var *xv, const double *A, long sa, long o,
                           const double *x, long sx, int lo, int hi)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0, t = 0.0;
    int i = lo;
#define BR_GA_T(k) br_ga_dot_term(rhs, g, xv, A, sa, o, x, sx, i + (k), 0)
    for (; i + 7 <= hi; i += 8) {
        s0 += BR_GA_T(0), s1 += BR_GA_T(1), s2 += BR_GA_T(2), s3 += BR_GA_T(3);
        s4 += BR_GA_T(4), s5 += BR_GA_T(5), s6 += BR_GA_T(6), s7 += BR_GA_T(7);
    }
    for (; i <= hi; i++) t += BR_GA_T(0);
#undef BR_GA_T
    return (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) + t;
}

/* the same sum in lanes (lane l's terms), into out[l]: each lane br_ga_dot8_of's order */
BR_HD void br_ga_dot8_of_l(int rhs, const br_ga_shape *g, const br_ga_var *xv, const double *A, long sa, long o,
                           const double *x, long sx, int lo, int hi, int nl, double *out)
{
    for (int l = 0; l < nl; l++) out[l] = 0.0;
    int i = lo;
    if (i + 7 <= hi) {
        double s[8][BR_GA_LANES];
        for (int k = 0; k < 8; k++)
            for (int l = 0; l < nl; l++) s[k][l] = 0.0;
        for (; i + 7 <= hi; i += 8)
            for (int k = 0; k < 8; k++)
                BR_LANEWISE for (int l = 0; l < nl; l++) s[k][l] += br_ga_dot_term(rhs, g, xv, A, sa, o, x, sx, i + k, l);
        for (int l = 0; l < nl; l++)
            out[l] = ((s[0][l] + s[1][l]) + (s[2][l] + s[3][l])) + ((s[4][l] + s[5][l]) + (s[6][l] + s[7][l]));
    }
    double t[BR_GA_LANES];
    for (int l = 0; l < nl; l++) t[l] = 0.0;
    for (; i <= hi; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) t[l] += br_ga_dot_term(rhs, g, xv, A, sa, o, x, sx, i, l);
    for (int l = 0; l < nl; l++) out[l] += t[l];
}

/* A (stride sa) from storage index o, x (stride sx), rows lo..hi -> sum of A_(o+i) x_i (br_ga_dot8_of's order) */
BR_HD double br_ga_dot8(const double *A, long sa, long o, const double *x, long sx, int lo, int hi)
{
    return br_ga_dot8_of(0, NULL, NULL, A, sa, o, x, sx, lo, hi);
}

/* the same in lanes (lane l of A and x at +l), into out[l] */
BR_HD void br_ga_dot8_l(const double *A, long sa, long o, const double *x, long sx, int lo, int hi, int nl, double *out)
{
    br_ga_dot8_of_l(0, NULL, NULL, A, sa, o, x, sx, lo, hi, nl, out);
}

/* shape, variant at t_n, o (as br_ga_rhs_term_l), rows lo..hi -> the sum of their br_ga_rhs_term_l (br_ga_dot8_of's
 * order) */
BR_HD double br_ga_rhs_dot8(const br_ga_shape *g, const br_ga_var *x, long o, int lo, int hi)
{
    return br_ga_dot8_of(1, g, x, NULL, 0, o, NULL, 0, lo, hi);
}

/* the same in lanes, into out[l] */
BR_HD void br_ga_rhs_dot8_l(const br_ga_shape *g, const br_ga_var *x, long o, int lo, int hi, int nl, double *out)
{
    br_ga_dot8_of_l(1, g, x, NULL, 0, o, NULL, 0, lo, hi, nl, out);
}

/* matrix A (n x n, stride sa) with column profile lo..hi, column j's entry (0, j) at col[j] (NULL:
 * j n), x (stride sx), lanes -> y = A x (stride sy). A column whose x_j is zero in every lane is
 * skipped; in a lane where only that lane's x_j is zero, y += A_ij 0 leaves y as it is (A finite,
 * and y never -0: it starts +0 and a sum is -0 only of two -0), so each lane is its own product */
BR_HD void br_ga_matvec_l(int n, const double *A, long sa, const int *lo, const int *hi, const int *col,
                          const double *x, long sx, double *y, long sy, int nl)
{
    for (int i = 0; i < n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(y, i, sy, l) = 0.0;
    for (int j = 0; j < n; j++) {
        double xj[BR_GA_LANES];
        int any = 0;
        for (int l = 0; l < nl; l++) xj[l] = BR_GL(x, j, sx, l), any |= xj[l] != 0.0;
        if (!any) continue;
        const long o = col ? (long)col[j] : (long)j * n;
        for (int i = lo[j]; i <= hi[j]; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(y, i, sy, l) += BR_GL(A, o + i, sa, l) * xj[l];
    }
}

BR_HD void br_ga_matvec(int n, const double *A, long sa, const int *lo, const int *hi, const int *col, const double *x,
                        long sx, double *y, long sy)
{
    br_ga_matvec_l(n, A, sa, lo, hi, col, x, sx, y, sy, 1);
}

/* symmetric A (n x n, stride sa) on the column profile lo..hi (col as br_ga_matvec_l's), x (stride sx), lanes ->
 * y = A x (stride sy) from each column's entries on and below the diagonal, rows max(lo, j) .. hi, half a full
 * product's reads: column j adds A_ij x_j into the rows below j, then its br_ga_dot8 with x over those rows and
 * the diagonal into y_j, which no later column touches. Row i's sum is thus the columns j < i in ascending
 * order, then its own column's dot8 (br_ga_rows_keff's order for a shape with sym). A profile that is not
 * symmetric is no matter: the entries of row j left of the diagonal are those of the columns before j. */
BR_HD void br_ga_symv_l(int n, const double *A, long sa, const int *lo, const int *hi, const int *col, const double *x,
                        long sx, double *y, long sy, int nl)
{
    for (int i = 0; i < n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(y, i, sy, l) = 0.0;
    for (int j = 0; j < n; j++) {
        const int i0 = lo[j] > j ? lo[j] : j;
        if (i0 > hi[j]) continue;
        const long o = col ? (long)col[j] : (long)j * n;
        double d[BR_GA_LANES], xj[BR_GA_LANES];
        if (nl == 1) d[0] = br_ga_dot8(A, sa, o, x, sx, i0, hi[j]); /* named sums: one vector's loop */
        else br_ga_dot8_l(A, sa, o, x, sx, i0, hi[j], nl, d);
        for (int l = 0; l < nl; l++) xj[l] = BR_GL(x, j, sx, l);
        for (int i = i0 > j ? i0 : j + 1; i <= hi[j]; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(y, i, sy, l) += BR_GL(A, o + i, sa, l) * xj[l];
        for (int l = 0; l < nl; l++) BR_GL(y, j, sy, l) += d[l];
    }
}

/* shape, L (stride sl), x (n, stride sx), lanes -> y = L x (nr, stride sy), over each row's nonzero columns */
BR_HD void br_ga_lmul_l(const br_ga_shape *g, const double *L, long sl, const double *x, long sx, double *y, long sy,
                        int nl)
{
    for (int i = 0; i < g->nr; i++) {
        const long o = (long)i * g->n;
        const int *col = g->Lcol + o;
        double s[BR_GA_LANES];
        for (int l = 0; l < nl; l++) s[l] = 0.0;
        for (int q = 0; q < g->Lcnt[i]; q++)
            BR_LANEWISE for (int l = 0; l < nl; l++) s[l] += BR_GL(L, o + col[q], sl, l) * BR_GL(x, col[q], sx, l);
        for (int l = 0; l < nl; l++) BR_GL(y, i, sy, l) = s[l];
    }
}

BR_HD void br_ga_lmul(const br_ga_shape *g, const double *L, long sl, const double *x, long sx, double *y, long sy)
{
    br_ga_lmul_l(g, L, sl, x, sx, y, sy, 1);
}

/* E (nr / 6 blocks of 36, column-major, stride se), x (nr), lanes -> y = E x */
BR_HD void br_ga_emul_l(int nr, const double *E, long se, const double *x, long sx, double *y, long sy, int nl)
{
    for (int b = 0; b < nr; b += 6)
        for (int i = 0; i < 6; i++) {
            double s[BR_GA_LANES];
            for (int l = 0; l < nl; l++) s[l] = 0.0;
            for (int k = 0; k < 6; k++)
                BR_LANEWISE for (int l = 0; l < nl; l++)
                    s[l] += BR_GL(E, 6 * b + 6 * k + i, se, l) * BR_GL(x, b + k, sx, l);
            for (int l = 0; l < nl; l++) BR_GL(y, b + i, sy, l) = s[l];
        }
}

BR_HD void br_ga_emul(int nr, const double *E, long se, const double *x, long sx, double *y, long sy)
{
    br_ga_emul_l(nr, E, se, x, sx, y, sy, 1);
}

/* A (m x m column-major, stride sa), b (stride sb), lanes -> A overwritten by its LU factors with
 * partial pivoting (the first largest |entry| of a column below the diagonal, rows swapped
 * whole), b by the solution of A x = b; rc[l]: 0, or k + 1 when lane l's column k has no nonzero
 * pivot. A lane without a pivot goes on with 1 in its place (its result is not used) until every
 * lane has stopped: with one lane, the return at the first zero pivot. Returns the first lane's rc. */
BR_HD int br_ga_lu_solve_l(int m, double *A, long sa, double *b, long sb, int nl, int *rc)
{
    int live = nl;
    for (int l = 0; l < nl; l++) rc[l] = 0;
    for (int k = 0; k < m && live; k++) {
        int p[BR_GA_LANES];
        double big[BR_GA_LANES], piv[BR_GA_LANES];
        for (int l = 0; l < nl; l++) p[l] = k, big[l] = fabs(BR_GL(A, (long)k * m + k, sa, l));
        for (int i = k + 1; i < m; i++)
            for (int l = 0; l < nl; l++) {
                const double x = fabs(BR_GL(A, (long)k * m + i, sa, l));
                if (x > big[l]) big[l] = x, p[l] = i;
            }
        for (int l = 0; l < nl; l++)
            if (!rc[l] && BR_GL(A, (long)k * m + p[l], sa, l) == 0.0) rc[l] = k + 1, live--;
        if (!live) break;
        for (int l = 0; l < nl; l++) {
            if (p[l] != k) {
                for (int j = 0; j < m; j++) {
                    const double t = BR_GL(A, (long)j * m + k, sa, l);
                    BR_GL(A, (long)j * m + k, sa, l) = BR_GL(A, (long)j * m + p[l], sa, l);
                    BR_GL(A, (long)j * m + p[l], sa, l) = t;
                }
                const double t = BR_GL(b, k, sb, l);
                BR_GL(b, k, sb, l) = BR_GL(b, p[l], sb, l);
                BR_GL(b, p[l], sb, l) = t;
            }
            piv[l] = rc[l] ? 1.0 : BR_GL(A, (long)k * m + k, sa, l);
        }
        for (int i = k + 1; i < m; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(A, (long)k * m + i, sa, l) /= piv[l];
        for (int j = k + 1; j < m; j++) {
            double akj[BR_GA_LANES];
            for (int l = 0; l < nl; l++) akj[l] = BR_GL(A, (long)j * m + k, sa, l);
            for (int i = k + 1; i < m; i++)
                BR_LANEWISE for (int l = 0; l < nl; l++)
                    BR_GL(A, (long)j * m + i, sa, l) -= BR_GL(A, (long)k * m + i, sa, l) * akj[l];
        }
    }
    if (!live) return rc[0];
    for (int k = 0; k < m; k++) /* unit lower triangle */
        for (int i = k + 1; i < m; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++)
                BR_GL(b, i, sb, l) -= BR_GL(A, (long)k * m + i, sa, l) * BR_GL(b, k, sb, l);
    for (int k = m - 1; k >= 0; k--) { /* upper triangle (a lane without a pivot divides by what it has) */
        for (int l = 0; l < nl; l++) BR_GL(b, k, sb, l) /= BR_GL(A, (long)k * m + k, sa, l);
        for (int i = 0; i < k; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++)
                BR_GL(b, i, sb, l) -= BR_GL(A, (long)k * m + i, sa, l) * BR_GL(b, k, sb, l);
    }
    return rc[0];
}

/* the same for one matrix: 0, or k + 1 when column k has no nonzero pivot */
BR_HD int br_ga_lu_solve(int m, double *A, long sa, double *b, long sb)
{
    int rc[1];
    return br_ga_lu_solve_l(m, A, sa, b, sb, 1, rc);
}

/* shape, variant at t_n -> the state predicted at the equation time t_n + (1 - af) h:
 * up = u + (1-af)(h v + h^2/2 a), vp = v + (1-af) h a (stride sp) */
/* (lanes: lane l of x's state and of up, vp at +l) */
BR_HD void br_ga_predict_l(const br_ga_shape *g, const br_ga_var *x, double *up, double *vp, long sp, int nl)
{
    const double c = 1 - g->af, h = g->h;
    for (int i = 0; i < g->n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) {
            const double u = BR_GL(x->u, i, x->s, l), v = BR_GL(x->v, i, x->s, l), a = BR_GL(x->a, i, x->s, l);
            BR_GL(up, i, sp, l) = u + c * (h * v + 0.5 * h * h * a);
            BR_GL(vp, i, sp, l) = v + c * h * a;
        }
}

BR_HD void br_ga_predict(const br_ga_shape *g, const br_ga_var *x, double *up, double *vp, long sp)
{
    br_ga_predict_l(g, x, up, vp, sp, 1);
}

/* shape, variant, E (stride se), row i and column k of I + E Y (E block diagonal), lanes -> x->Ar's entry */
BR_HD void br_ga_woodbury_entry_l(const br_ga_shape *g, br_ga_var *x, const double *E, long se, int i, int k, int nl)
{
    const int nr = g->nr, b = i - i % 6;
    double sum[BR_GA_LANES];
    for (int l = 0; l < nl; l++) sum[l] = i == k ? 1.0 : 0.0;
    for (int j = b; j < b + 6; j++)
        BR_LANEWISE for (int l = 0; l < nl; l++)
            sum[l] += BR_GL(E, 6 * b + 6 * (j - b) + (i - b), se, l) * BR_GL(x->Y, (long)k * nr + j, x->sY, l);
    for (int l = 0; l < nl; l++) BR_GL(x->Ar, (long)k * nr + i, x->s, l) = sum[l];
}

BR_HD void br_ga_woodbury_entry(const br_ga_shape *g, br_ga_var *x, const double *E, long se, int i, int k)
{
    br_ga_woodbury_entry_l(g, x, E, se, i, k, 1);
}

/* shape, variant, E (stride se), lanes -> x->Ar = I + E Y (E block diagonal) */
BR_HD void br_ga_woodbury_form_l(const br_ga_shape *g, br_ga_var *x, const double *E, long se, int nl)
{
    for (int k = 0; k < g->nr; k++)
        for (int i = 0; i < g->nr; i++) br_ga_woodbury_entry_l(g, x, E, se, i, k, nl);
}

BR_HD void br_ga_woodbury_form(const br_ga_shape *g, br_ga_var *x, const double *E, long se)
{
    br_ga_woodbury_form_l(g, x, E, se, 1);
}

/* shape, variant at t_n, load f (n, stride sf), E (the contact blocks ck K + cc C, 36 nr / 6,
 * stride se; NULL: no low-rank term this step) -> x->w = x0 = Keff^-1 rhs and, with E, the
 * Woodbury system's right side x->yq (E L x0), its matrix not formed (br_ga_woodbury_form) */
BR_HD void br_ga_solve_begin_rhs_l(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E,
                                   long se, int nl)
{
    const int n = g->n, nr = E ? g->nr : 0;
    const long s = x->s;
    /* M, C and K in one pass over their common profile */
    for (int i = 0; i < n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(x->r, i, s, l) = BR_GL(f, i, sf, l);
    for (int j = 0; j < n; j++) {
        double mj[BR_GA_LANES], wj[BR_GA_LANES], uj[BR_GA_LANES], d[BR_GA_LANES];
        for (int l = 0; l < nl; l++) br_ga_rhs_factors_l(g, x, j, l, &mj[l], &wj[l], &uj[l]);
        const long o = br_ga_pcol(g, j);
        /* symmetric: the rows from the diagonal down, and those rows' entries as row j's (br_ga_symv_l's order) */
        const int i0 = g->sym && g->plo[j] < j ? j : g->plo[j], dot = g->sym && i0 <= g->phi[j];
        for (int l = 0; l < nl; l++) d[l] = 0.0;
        if (dot && nl == 1) d[0] = br_ga_rhs_dot8(g, x, o, i0, g->phi[j]);
        else if (dot) br_ga_rhs_dot8_l(g, x, o, i0, g->phi[j], nl, d);
        for (int i = g->sym && i0 == j ? j + 1 : i0; i <= g->phi[j]; i++)
            BR_LANEWISE for (int l = 0; l < nl; l++)
                BR_GL(x->r, i, s, l) -= BR_GL(x->M, o + i, x->sM, l) * mj[l] + BR_GL(x->C, o + i, x->sC, l) * wj[l] +
                                        BR_GL(x->K, o + i, x->sK, l) * uj[l];
        if (dot)
            for (int l = 0; l < nl; l++) BR_GL(x->r, j, s, l) -= d[l];
    }
    if (nr > 0) { /* + L^T E L a0 */
        br_ga_lmul_l(g, x->L, x->sL, x->a, s, x->ye, s, nl);
        br_ga_emul_l(nr, E, se, x->ye, s, x->yq, s, nl);
        for (int k = 0; k < nr; k++) {
            const long o = (long)k * n;
            const int *col = g->Lcol + o;
            double yk[BR_GA_LANES];
            for (int l = 0; l < nl; l++) yk[l] = BR_GL(x->yq, k, s, l);
            for (int q = 0; q < g->Lcnt[k]; q++)
                BR_LANEWISE for (int l = 0; l < nl; l++)
                    BR_GL(x->r, col[q], s, l) += BR_GL(x->L, o + col[q], x->sL, l) * yk[l];
        }
    }
    /* x0 = Keff^-1 rhs */
    if (g->sym) br_ga_symv_l(n, x->Lf, x->sLf, g->flo, g->fhi, g->fcol, x->r, s, x->w, s, nl);
    else br_ga_matvec_l(n, x->Lf, x->sLf, g->flo, g->fhi, g->fcol, x->r, s, x->w, s, nl);
    if (nr > 0) {
        br_ga_lmul_l(g, x->L, x->sL, x->w, s, x->ye, s, nl);
        br_ga_emul_l(nr, E, se, x->ye, s, x->yq, s, nl);
    }
}

BR_HD void br_ga_solve_begin_rhs(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E, long se)
{
    if (x->s == 1 && x->sM == 1 && x->sC == 1 && x->sK == 1 && x->sLf == 1 && x->sL == 1 && sf == 1 && se == 1) {
        /* a variant's own arrays (the single runs): the same operations with the strides as constants, so that
         * the compiler's loops take contiguous vectors (perf, docs/time-stepping.md) */
        br_ga_var u = *x;
        u.s = u.sM = u.sC = u.sK = u.sLf = u.sL = 1;
        br_ga_solve_begin_rhs_l(g, &u, f, 1, E, 1, 1);
        return;
    }
    br_ga_solve_begin_rhs_l(g, x, f, sf, E, se, 1);
}

/* shape, variant at t_n, load f (n, stride sf), E (as above) -> x->w = x0 = Keff^-1 rhs and, with E,
 * the Woodbury system left in x->Ar (I + E Y) and x->yq (E L x0); br_ga_solve_end finishes */
BR_HD void br_ga_solve_begin(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E, long se)
{
    br_ga_solve_begin_rhs(g, x, f, sf, E, se);
    if (E && g->nr > 0) br_ga_woodbury_form(g, x, E, se);
}

/* shape, variant after br_ga_solve_begin and (with_q) x->yq overwritten by the solution q of
 * (I + E Y) q = E L x0 -> x->a1 = x0 - Z q */
/* (lanes: with_q[l] for each; a lane without q subtracts Z 0, which leaves w as it is, w never -0) */
BR_HD void br_ga_solve_end_l(const br_ga_shape *g, br_ga_var *x, const int *with_q, int nl)
{
    const int n = g->n;
    const long s = x->s;
    int any = 0;
    for (int l = 0; l < nl; l++) any |= with_q[l];
    for (int k = 0; any && k < g->nr; k++) {
        double q[BR_GA_LANES];
        for (int l = 0; l < nl; l++) q[l] = with_q[l] ? BR_GL(x->yq, k, s, l) : 0.0;
        const long o = (long)k * n;
        for (int j = g->zlo[k]; j <= g->zhi[k]; j++)
            BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(x->w, j, s, l) -= BR_GL(x->Z, o + j, x->sZ, l) * q[l];
    }
    for (int i = 0; i < n; i++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(x->a1, i, s, l) = BR_GL(x->w, i, s, l);
}

BR_HD void br_ga_solve_end(const br_ga_shape *g, br_ga_var *x, int with_q)
{
    br_ga_solve_end_l(g, x, &with_q, 1);
}

/* shape, variant at t_n, f, E (as br_ga_solve_begin), lanes -> x->a1, the Woodbury system solved by
 * br_ga_lu_solve; rc[l]: 0, or -1 when lane l's I + E Y is singular (its a1 = x0 then) */
BR_HD void br_ga_solve_l(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E, long se,
                         int nl, int *rc)
{
    br_ga_solve_begin_rhs_l(g, x, f, sf, E, se, nl);
    const int lr = E && g->nr > 0;
    int with_q[BR_GA_LANES];
    for (int l = 0; l < nl; l++) rc[l] = 0, with_q[l] = lr;
    if (lr) {
        br_ga_woodbury_form_l(g, x, E, se, nl);
        br_ga_lu_solve_l(g->nr, x->Ar, x->s, x->yq, x->s, nl, rc);
        for (int l = 0; l < nl; l++) rc[l] = rc[l] ? -1 : 0, with_q[l] = rc[l] == 0;
    }
    br_ga_solve_end_l(g, x, with_q, nl);
}

/* the same for one variant: 0, or -1 when I + E Y is singular */
BR_HD int br_ga_solve(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E, long se)
{
    int rc;
    br_ga_solve_l(g, x, f, sf, E, se, 1, &rc);
    return rc;
}

/* shape, variant, block k of the contact rows, w (6) -> f += L_k^T w (stride sf): a force in those
 * rows' coordinates as a generalized force */
BR_HD void br_ga_row_force(const br_ga_shape *g, const br_ga_var *x, int k, const double w[6], double *f, long sf)
{
    for (int r = 6 * k; r < 6 * k + 6; r++) {
        const long o = (long)r * g->n;
        const int *col = g->Lcol + o;
        for (int q = 0; q < g->Lcnt[r]; q++) BR_GA(f, col[q], sf) += BR_GA(x->L, o + col[q], x->sL) * w[r - 6 * k];
    }
}

/* shape, variant after br_ga_solve -> the contact rows' changes at the equation time
 * (stride sd, nr each): du = ck L (a1 - a0), dv = cc L (a1 - a0), and
 * dm = L ((u_{n+1} - u_n) / h - v_pred) = L h ((1/2 - beta - (1-af)) a0 + beta a1) */
BR_HD void br_ga_row_changes_l(const br_ga_shape *g, br_ga_var *x, double *du, double *dv, double *dm, long sd, int nl)
{
    const int n = g->n;
    const long s = x->s;
    const double h = g->h, be = g->beta, af = g->af;
    const double ck = (1 - af) * be * h * h, cc = (1 - af) * g->gamma * h;
    for (int j = 0; j < n; j++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(x->w, j, s, l) = BR_GL(x->a1, j, s, l) - BR_GL(x->a, j, s, l);
    br_ga_lmul_l(g, x->L, x->sL, x->w, s, dv, sd, nl);
    for (int k = 0; k < g->nr; k++)
        BR_LANEWISE for (int l = 0; l < nl; l++) BR_GL(du, k, sd, l) = ck * BR_GL(dv, k, sd, l), BR_GL(dv, k, sd, l) *= cc;
    for (int j = 0; j < n; j++)
        BR_LANEWISE for (int l = 0; l < nl; l++)
            BR_GL(x->w, j, s, l) = h * ((0.5 - be - (1 - af)) * BR_GL(x->a, j, s, l) + be * BR_GL(x->a1, j, s, l));
    br_ga_lmul_l(g, x->L, x->sL, x->w, s, dm, sd, nl);
}

BR_HD void br_ga_row_changes(const br_ga_shape *g, br_ga_var *x, double *du, double *dv, double *dm, long sd)
{
    br_ga_row_changes_l(g, x, du, dv, dm, sd, 1);
}

/* shape, variant with a1 solved -> u, v, a at t_{n+1} (Newmark) */
/* shape, variant, row i -> u, v, a of row i advanced (br_ga_advance's row: rows are independent) */
BR_HD void br_ga_advance_row_l(const br_ga_shape *g, br_ga_var *x, int i, int l)
{
    const double h = g->h, ga = g->gamma, be = g->beta;
    const long s = x->s;
    const double a1 = BR_GL(x->a1, i, s, l), a0 = BR_GL(x->a, i, s, l);
    BR_GL(x->u, i, s, l) += h * BR_GL(x->v, i, s, l) + h * h * ((0.5 - be) * a0 + be * a1);
    BR_GL(x->v, i, s, l) += h * ((1 - ga) * a0 + ga * a1);
    BR_GL(x->a, i, s, l) = a1;
}

BR_HD void br_ga_advance_row(const br_ga_shape *g, br_ga_var *x, int i) { br_ga_advance_row_l(g, x, i, 0); }

BR_HD void br_ga_advance(const br_ga_shape *g, br_ga_var *x)
{
    for (int i = 0; i < g->n; i++) br_ga_advance_row(g, x, i);
}

/* shape, A (n x n on the M, C, K profile, stride sa), x, y, column j -> column j's term of x^T A y:
 * (br_ga_dot8 over the profile of column j of A_ij x_i) y_j; with sym, from the diagonal down:
 * (A_jj x_j + dot8 of A_ij x_i below it) y_j + (dot8 of A_ij y_i below it) x_j (the second sum is the
 * first when x is y) */
BR_HD double br_ga_quad_col(const br_ga_shape *g, const double *A, long sa, const double *x, long sx, const double *y,
                            long sy, int j)
{
    const long o = br_ga_pcol(g, j);
    if (!g->sym) return br_ga_dot8(A, sa, o, x, sx, g->plo[j], g->phi[j]) * BR_GA(y, j, sy);
    const int i0 = g->plo[j] > j ? g->plo[j] : j, i1 = i0 > j ? i0 : j + 1;
    const double dx = br_ga_dot8(A, sa, o, x, sx, i1, g->phi[j]);
    const double dy = x == y && sx == sy ? dx : br_ga_dot8(A, sa, o, y, sy, i1, g->phi[j]);
    const double diag = i0 == j && j <= g->phi[j] ? BR_GA(A, o + j, sa) * BR_GA(x, j, sx) : 0.0;
    return (diag + dx) * BR_GA(y, j, sy) + dy * BR_GA(x, j, sx);
}

/* the same in lanes, into out[l] */
BR_HD void br_ga_quad_col_l(const br_ga_shape *g, const double *A, long sa, const double *x, long sx, const double *y,
                            long sy, int j, int nl, double *out)
{
    const long o = br_ga_pcol(g, j);
    if (!g->sym) {
        br_ga_dot8_l(A, sa, o, x, sx, g->plo[j], g->phi[j], nl, out);
        for (int l = 0; l < nl; l++) out[l] *= BR_GL(y, j, sy, l);
        return;
    }
    const int i0 = g->plo[j] > j ? g->plo[j] : j, i1 = i0 > j ? i0 : j + 1;
    double dx[BR_GA_LANES], dy[BR_GA_LANES];
    br_ga_dot8_l(A, sa, o, x, sx, i1, g->phi[j], nl, dx);
    if (x == y && sx == sy)
        for (int l = 0; l < nl; l++) dy[l] = dx[l];
    else br_ga_dot8_l(A, sa, o, y, sy, i1, g->phi[j], nl, dy);
    for (int l = 0; l < nl; l++) {
        const double diag = i0 == j && j <= g->phi[j] ? BR_GL(A, o + j, sa, l) * BR_GL(x, j, sx, l) : 0.0;
        out[l] = (diag + dx[l]) * BR_GL(y, j, sy, l) + dy[l] * BR_GL(x, j, sx, l);
    }
}

/* shape, A (n x n on the M, C, K profile, stride sa), x, y -> x^T A y summed column by column */
BR_HD double br_ga_quad(const br_ga_shape *g, const double *A, long sa, const double *x, long sx, const double *y,
                        long sy)
{
    double sum = 0.0;
    for (int j = 0; j < g->n; j++) sum += br_ga_quad_col(g, A, sa, x, sx, y, sy, j);
    return sum;
}

/* shape, variant -> kinetic v^T M v / 2 and elastic u^T K u / 2, column by column (br_ga_quad_col) */
BR_HD void br_ga_energies(const br_ga_shape *g, const br_ga_var *x, double *kinetic, double *elastic)
{
    double ek = 0.0, ee = 0.0;
    const long s = x->s;
    for (int j = 0; j < g->n; j++) {
        ek += br_ga_quad_col(g, x->M, x->sM, x->v, s, x->v, s, j);
        ee += br_ga_quad_col(g, x->K, x->sK, x->u, s, x->u, s, j);
    }
    *kinetic = 0.5 * ek, *elastic = 0.5 * ee;
}

/* the same in lanes: kinetic[l] and elastic[l] of each lane, each in br_ga_energies's order (br_ga_quad_col_l
 * is br_ga_quad_col's sum lane by lane) */
BR_HD void br_ga_energies_l(const br_ga_shape *g, const br_ga_var *x, int nl, double *kinetic, double *elastic)
{
    double ek[BR_GA_LANES], ee[BR_GA_LANES];
    const long s = x->s;
    for (int l = 0; l < nl; l++) ek[l] = ee[l] = 0.0;
    for (int j = 0; j < g->n; j++) {
        double cm[BR_GA_LANES], ck[BR_GA_LANES];
        br_ga_quad_col_l(g, x->M, x->sM, x->v, s, x->v, s, j, nl, cm);
        br_ga_quad_col_l(g, x->K, x->sK, x->u, s, x->u, s, j, nl, ck);
        for (int l = 0; l < nl; l++) ek[l] += cm[l], ee[l] += ck[l];
    }
    for (int l = 0; l < nl; l++) kinetic[l] = 0.5 * ek[l], elastic[l] = 0.5 * ee[l];
}

/* ---- the same solve by rows: br_ga_solve in phases whose entries do not depend on one another
 * (on a GPU a thread each: kernels/ga_cuda.cu, kernels/beam_cuda.cu). Each entry is summed over
 * the same terms in the same order as br_ga_solve's column loops add them into it (row i of a
 * column-major matrix-vector product over j ascending is the column loop's sum for that row), so
 * the result is bitwise br_ga_solve's (test_ga_batch: solve_by_rows_is_the_column_solve). The
 * order: br_ga_rows_rhs on every row (and br_ga_rows_lemul(a) on every block of six contact rows
 * when there is a low-rank term), br_ga_rows_lt, br_ga_rows_keff, br_ga_rows_woodbury on every
 * block, br_ga_lu_solve per variant, br_ga_rows_end. ---- */

/* shape, variant at t_n, f (stride sf), row i -> x->r's row i: f_i - (M mj + C wj + K uj)_i over
 * the profile, column by column */
BR_HD void br_ga_rows_rhs(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, int i)
{
    const int n = g->n;
    double r = BR_GA(f, i, sf);
    for (int j = 0; j < (g->sym ? i : n); j++) { /* symmetric: the columns left of the diagonal, then column i's */
        if (i < g->plo[j] || i > g->phi[j]) continue;
        double mj, wj, uj;
        br_ga_rhs_factors(g, x, j, &mj, &wj, &uj);
        const long o = br_ga_pcol(g, j) + i;
        r -= BR_GA(x->M, o, x->sM) * mj + BR_GA(x->C, o, x->sC) * wj + BR_GA(x->K, o, x->sK) * uj;
    }
    const int i0 = g->plo[i] > i ? g->plo[i] : i;
    if (g->sym && i0 <= g->phi[i]) r -= br_ga_rhs_dot8(g, x, br_ga_pcol(g, i), i0, g->phi[i]);
    BR_GA(x->r, i, x->s) = r;
}

/* shape, variant, E (stride se), y (n, stride sy), block b (contact rows 6b to 6b + 5) -> those
 * rows of x->ye = L y and of x->yq = E x->ye */
BR_HD void br_ga_rows_lemul(const br_ga_shape *g, br_ga_var *x, const double *E, long se, const double *y, long sy, int b)
{
    const long s = x->s;
    const int r0 = 6 * b;
    for (int i = r0; i < r0 + 6; i++) {
        const long o = (long)i * g->n;
        const int *col = g->Lcol + o;
        double sum = 0.0;
        for (int q = 0; q < g->Lcnt[i]; q++) sum += BR_GA(x->L, o + col[q], x->sL) * BR_GA(y, col[q], sy);
        BR_GA(x->ye, i, s) = sum;
    }
    for (int i = 0; i < 6; i++) {
        double sum = 0.0;
        for (int k = 0; k < 6; k++) sum += BR_GA(E, 6 * r0 + 6 * k + i, se) * BR_GA(x->ye, r0 + k, s);
        BR_GA(x->yq, r0 + i, s) = sum;
    }
}

/* shape, variant with x->yq, row i -> x->r's row i plus (L^T yq)_i, contact row by contact row
 * (the rows of L whose nonzero columns list i) */
BR_HD void br_ga_rows_lt(const br_ga_shape *g, br_ga_var *x, int i)
{
    const long s = x->s;
    double r = BR_GA(x->r, i, s);
    for (int k = 0; k < g->nr; k++) {
        const long o = (long)k * g->n;
        const int *col = g->Lcol + o;
        for (int q = 0; q < g->Lcnt[k]; q++)
            if (col[q] == i) {
                r += BR_GA(x->L, o + i, x->sL) * BR_GA(x->yq, k, s);
                break;
            }
    }
    BR_GA(x->r, i, s) = r;
}

/* shape, variant with x->r, row i -> x->w's row i = (Keff^-1 r)_i (br_ga_matvec's sum for that row) */
BR_HD void br_ga_rows_keff(const br_ga_shape *g, br_ga_var *x, int i)
{
    const long s = x->s;
    double y = 0.0;
    if (g->sym) { /* br_ga_symv_l's order: the columns left of the diagonal, then column i's dot8 */
        for (int j = 0; j < i; j++)
            if (i >= g->flo[j] && i <= g->fhi[j]) y += BR_GA(x->Lf, br_ga_fcol(g, j) + i, x->sLf) * BR_GA(x->r, j, s);
        const int i0 = g->flo[i] > i ? g->flo[i] : i;
        if (i0 <= g->fhi[i]) y += br_ga_dot8(x->Lf, x->sLf, br_ga_fcol(g, i), x->r, s, i0, g->fhi[i]);
        BR_GA(x->w, i, s) = y;
        return;
    }
    for (int j = 0; j < g->n; j++) {
        const double xj = BR_GA(x->r, j, s);
        if (xj == 0.0 || i < g->flo[j] || i > g->fhi[j]) continue;
        y += BR_GA(x->Lf, br_ga_fcol(g, j) + i, x->sLf) * xj;
    }
    BR_GA(x->w, i, s) = y;
}

/* shape, variant with x->w = x0, E (stride se), block b -> rows 6b to 6b + 5 of x->ye = L x0,
 * x->yq = E L x0 and of I + E Y in x->Ar */
BR_HD void br_ga_rows_woodbury(const br_ga_shape *g, br_ga_var *x, const double *E, long se, int b)
{
    br_ga_rows_lemul(g, x, E, se, x->w, x->s, b);
    for (int k = 0; k < g->nr; k++)
        for (int i = 6 * b; i < 6 * b + 6; i++) br_ga_woodbury_entry(g, x, E, se, i, k);
}

/* shape, variant with x->w = x0 and (with_q) q in x->yq, row j -> a1_j = x0_j - (Z q)_j */
BR_HD void br_ga_rows_end(const br_ga_shape *g, br_ga_var *x, int with_q, int j)
{
    const long s = x->s;
    double w = BR_GA(x->w, j, s);
    for (int k = 0; with_q && k < g->nr; k++)
        if (j >= g->zlo[k] && j <= g->zhi[k]) w -= BR_GA(x->Z, (long)k * g->n + j, x->sZ) * BR_GA(x->yq, k, s);
    BR_GA(x->w, j, s) = w;
    BR_GA(x->a1, j, s) = w;
}

/* shape, variant at t_n, f, E (as br_ga_solve) -> br_ga_solve's result by the row phases, one
 * after the other on the calling thread (what the GPU's launches do across threads) */
BR_HD int br_ga_solve_rows(const br_ga_shape *g, br_ga_var *x, const double *f, long sf, const double *E, long se)
{
    const int n = g->n, lr = E && g->nr > 0, nb = lr ? g->nr / 6 : 0;
    for (int i = 0; i < n; i++) br_ga_rows_rhs(g, x, f, sf, i);
    for (int b = 0; b < nb; b++) br_ga_rows_lemul(g, x, E, se, x->a, x->s, b);
    for (int i = 0; lr && i < n; i++) br_ga_rows_lt(g, x, i);
    for (int i = 0; i < n; i++) br_ga_rows_keff(g, x, i);
    for (int b = 0; b < nb; b++) br_ga_rows_woodbury(g, x, E, se, b);
    const int rc = lr && br_ga_lu_solve(g->nr, x->Ar, x->s, x->yq, x->s) ? -1 : 0;
    for (int j = 0; j < n; j++) br_ga_rows_end(g, x, lr && rc == 0, j);
    return rc;
}

/* ---- batches of variants, the variant innermost ---- */

enum { BR_GA_M = 0, BR_GA_C, BR_GA_K, BR_GA_LF, BR_GA_L, BR_GA_Z, BR_GA_Y, BR_GA_NMAT };

/* a batch's arrays (host or device): matrix k is mat[k], one copy all variants read (shared[k]) or
 * nv copies, entry e of variant v at mat[k][e nv + v]; the state and scratch likewise */
typedef struct br_ga_arrays {
    long nv;
    const double *mat[BR_GA_NMAT];
    int shared[BR_GA_NMAT];
    double *u, *v, *a, *a1, *r, *w;   /* n x nv */
    double *ye, *yq;                  /* nr x nv */
    double *Ar;                       /* nr x nr x nv */
} br_ga_arrays;

/* batch arrays, variant -> its br_ga_var */
BR_HD void br_ga_arrays_var(const br_ga_arrays *A, long v, br_ga_var *x)
{
    const double *p[BR_GA_NMAT];
    long st[BR_GA_NMAT];
    for (int k = 0; k < BR_GA_NMAT; k++) p[k] = A->mat[k] + (A->shared[k] ? 0 : v), st[k] = A->shared[k] ? 1 : A->nv;
    x->M = p[BR_GA_M], x->C = p[BR_GA_C], x->K = p[BR_GA_K], x->Lf = p[BR_GA_LF];
    x->L = p[BR_GA_L], x->Z = p[BR_GA_Z], x->Y = p[BR_GA_Y];
    x->sM = st[BR_GA_M], x->sC = st[BR_GA_C], x->sK = st[BR_GA_K], x->sLf = st[BR_GA_LF];
    x->sL = st[BR_GA_L], x->sZ = st[BR_GA_Z], x->sY = st[BR_GA_Y];
    x->u = A->u + v, x->v = A->v + v, x->a = A->a + v, x->a1 = A->a1 + v, x->r = A->r + v, x->w = A->w + v;
    x->ye = A->ye + v, x->yq = A->yq + v, x->Ar = A->Ar + v;
    x->s = A->nv;
}

/* shape, batch arrays, variant v, loads f (n x nv), E (36 nr / 6 x nv, or NULL), du, dv, dm
 * (nr x nv, or NULL) -> variant v solved (row changes where wanted) and advanced to t_{n+1};
 * 0, or -1 when its Woodbury system was singular */
BR_HD int br_ga_batch_one(const br_ga_shape *g, const br_ga_arrays *A, long v, const double *f, const double *E,
                          double *du, double *dv, double *dm)
{
    br_ga_var x;
    br_ga_arrays_var(A, v, &x);
    const int rc = br_ga_solve(g, &x, f + v, A->nv, E ? E + v : NULL, A->nv);
    if (du) br_ga_row_changes(g, &x, du + v, dv + v, dm + v, A->nv);
    br_ga_advance(g, &x);
    return rc;
}

/* the same for nl variants from v0 in lanes (no matrix shared: A->shared all 0), rc[l] as
 * br_ga_batch_one's return for variant v0 + l */
BR_HD void br_ga_batch_lanes(const br_ga_shape *g, const br_ga_arrays *A, long v0, int nl, const double *f,
                             const double *E, double *du, double *dv, double *dm, int *rc)
{
    br_ga_var x;
    br_ga_arrays_var(A, v0, &x);
    br_ga_solve_l(g, &x, f + v0, A->nv, E ? E + v0 : NULL, A->nv, nl, rc);
    if (du) br_ga_row_changes_l(g, &x, du + v0, dv + v0, dm + v0, A->nv, nl);
    for (int i = 0; i < g->n; i++)
        for (int l = 0; l < nl; l++) br_ga_advance_row_l(g, &x, i, l);
}

#endif
