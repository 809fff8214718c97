/* point_step.h: the fused step of one contact point, shared by the CPU loop
 * (host/field/field_cpu.c) and the CUDA kernel (kernels/field_cuda.cu):
 *     body point + set frame -> kinematics (1) -> Hunt-Crossley N (2)
 *     -> friction law and state update (3) -> contribution to the set sums (6).
 * Per-point data live in structure-of-arrays form; a set's law and counter
 * surface are passed as compile-time constants by both backends so the law and
 * surface switches fold away. */
#ifndef BR_POINT_STEP_H
#define BR_POINT_STEP_H

#include "point_kinematics.h"
#include "point_law.h"
#include "point_normal.h"

/* One contact set's per-point arrays and parameters, as the backend sees them
 * (host pointers on the CPU, device pointers on the GPU). */
typedef struct br_set_view {
    long n;                      /* points in the set */
    int law;                     /* enum br_law */
    int nstate;                  /* br_law_nstate(law, &fric) */
    const double *rx, *ry, *rz;  /* point positions in frame A */
    const double *K, *D;         /* per-point Hunt-Crossley K and D */
    double v_stick;              /* a point in contact with |Vt| < v_stick counts as stuck */
    br_normal_params normal;
    br_friction_params fric;
    double *state;               /* nstate * n doubles, state k of point i at [k*n + i] */
    double *outF;                /* optional (NULL): friction force on A, [k*n + i] */
    double *outN;                /* optional (NULL): normal force; both written by the backends */
    /* a deforming interface (physics.md 5.1; NULL otherwise): per point its relative displacement and
     * velocity in its own frame, iu[k * n + i] for u_t1 u_t2 u_n v_t1 v_t2 v_n (the step's input); its
     * frame's rows t1, t2, n in world axes, iR[k * n + i] (k = 3 row + column); what it gives the
     * structure's step, ipt[k * n + i] (BR_IFACE_* below) */
    const double *iu, *iR;
    double *ipt;
} br_set_view;

/* A deforming interface point's outputs (br_set_view.ipt), in its own frame: the force on A
 * f = N n - F, the friction force F (on B), Hunt-Crossley's slopes kn = dN/ddelta, cn = dN/ddeltadot
 * (0 out of contact), the damping part Nd of N and its power Pnd, the friction tangent J = dF/dVt
 * (row-major) and jN = dF/dN. With them the structure's step forms the point's stiffness and damping
 * (point_tangent.h's K_pt, C_pt with G = I) and books its powers. */
enum {
    BR_IFACE_F = 0, BR_IFACE_FF = 3, BR_IFACE_KN = 6, BR_IFACE_CN = 7, BR_IFACE_ND = 8, BR_IFACE_PND = 9,
    BR_IFACE_J = 10, BR_IFACE_JN = 19, BR_IFACE_NPT = 22
};

/* Per-set sums of one step (physics.md section 6), all in world axes. The
 * first BR_SUMS_NADD entries are added, the last two are maxima. */
typedef struct br_set_sums {
    double F[3];     /* friction force on A: sum of -F_i */
    double Fc[3];    /* total contact force on A: sum of N_i n - F_i */
    double Mc[3];    /* moment of the contact forces on A about A's origin */
    double Mf[3];    /* moment of the friction forces on A about A's origin */
    double N;        /* total normal force */
    double P;        /* friction power sum F_i . Vt_i */
    double E_el;     /* elastic energy in the normal springs */
    double P_nd;     /* power dissipated by normal damping (N - K delta^pK) deltadot */
    double E_b;      /* energy stored in the bristles */
    double ncontact; /* points with delta > 0 */
    double nstick;   /* of those, points with |Vt| < v_stick */
    double pen_max;  /* largest penetration (0 if none) */
    double vt_max;   /* largest sliding speed of a point in contact (0 if none) */
} br_set_sums;

#define BR_SUMS_NADD 19

/* -> sums with every entry zero */
BR_HD void br_sums_zero(br_set_sums *s)
{
    *s = (br_set_sums){{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 0.0, 0.0,
                       0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
}

/* acc, b -> acc combined with b (added, maxima for the last two); fixed order */
BR_HD void br_sums_combine(br_set_sums *acc, const br_set_sums *b)
{
    double *a = (double *)acc;
    const double *c = (const double *)b;
    for (int k = 0; k < BR_SUMS_NADD; k++) a[k] += c[k];
    for (int k = BR_SUMS_NADD; k < BR_SUMS_NADD + 2; k++) a[k] = c[k] > a[k] ? c[k] : a[k];
}

/* One contact point's contribution -> q, every entry written (a one-point br_set_sums, to be
 * combined into a set's sums): in-contact flag, kinematics k, plane normal n, normal force N, its
 * elastic energy Eel and damping power Pnd, friction F on B, power P, bristle energy Eb, whether it
 * sticks. Out of contact every force and energy passed in is zero; the flag keeps the point out of
 * the counts and maxima. Assigned, not added into zeros: 0 + x costs an add a sum (gcc keeps it for
 * x = -0) and combining q into sums that start at +0 gives the same bits either way. The
 * friction force is 0 - F, so that a point out of contact records +0 as before. */
BR_HD void br_sums_point(br_set_sums *q, int in, const br_point_kin *k, const double n[3],
                         double N, double Eel, double Pnd, const double F[3], double P,
                         double Eb, int stuck)
{
    double fc[3], mF[3];
    for (int j = 0; j < 3; j++) {
        q->F[j] = 0.0 - F[j];
        fc[j] = N * n[j] - F[j];
        mF[j] = -F[j];
        q->Fc[j] = fc[j];
    }
    br_cross3(k->rw, fc, q->Mc);
    br_cross3(k->rw, mF, q->Mf);
    q->N = N;
    q->P = P;
    q->E_el = Eel;
    q->P_nd = Pnd;
    q->E_b = Eb;
    q->ncontact = in ? 1.0 : 0.0;
    q->nstick = (in & stuck) ? 1.0 : 0.0;
    const double pen = in ? k->delta : 0.0, vt = in ? k->v : 0.0;
    q->pen_max = pen > 0.0 ? pen : 0.0;
    q->vt_max = vt > 0.0 ? vt : 0.0;
}

/* law, sliding speed v, friction force F (either body's), normal force N -> 1 if the point counts
 * as stuck: sliding slower than v_stick; for jenkins, whose spring takes up any sliding, a slider
 * inside its limit (|F| < mu N) */
BR_HD int br_point_stuck(int law, const br_friction_params *p, double v, double v_stick, const double F[3], double N)
{
    return law == BR_LAW_JENKINS ? br_norm3(F) < p->mu_k * N * (1.0 - 1e-12) : v < v_stick;
}

/* What a point passes to its set's wrench tangent (the inputs of br_tan_point_pieces). */
typedef struct br_point_tan {
    double rw[3], n[3]; /* world offset from A's origin, unit normal */
    double kn, cn, Nd;  /* dN/ddelta, dN/ddeltadot, the damping part of N (0 when not a spring) */
    br_fric_tangent ft; /* friction tangent (zero out of contact) */
} br_point_tan;

/* The step of one point whose inputs the caller has loaded: position r (frame A), Hunt-Crossley
 * K and D, and its state at st[k * stride] (the set's arrays on the CPU; registers, stride 1, in
 * the CUDA kernel, which loads every input of its points before computing any and stores each
 * state once) -> as br_point_advance below. A deforming interface's point (surface BR_SURF_LOCAL,
 * a constant like every surface: the other kinematics fold away) takes its relative displacement in
 * its own frame as r and its relative velocity as f->c (a frame of its own, br_point_iface) instead
 * (br_kin_local). */
BR_HD void br_point_core(int law, int surface, const br_set_view *s, const br_set_frame *f, double h,
                         const double r[3], double K, double D, double *st, long stride, br_set_sums *q,
                         br_point_tan *t)
{
    br_point_kin k;
    if (surface == BR_SURF_LOCAL) br_kin_local(r, f->c, &k);
    else br_kin(surface, f, r, &k);
    const int pres = f->Npt >= 0.0;
    const int hc = k.delta > 0.0;
    const int in = pres | hc;
    const double N = pres ? f->Npt : br_hunt_crossley(&s->normal, K, D, k.delta, k.deltadot);
    double F[3], P;
    br_fric_tangent ft;
    br_friction_eval(law, &s->fric, h, k.Vt, k.v, k.n, N, K, st, stride, F, &P, t ? &ft : NULL);
    for (int j = 0; j < br_law_nstate(law, &s->fric); j++) st[j * stride] = in ? st[j * stride] : 0.0;
    for (int j = 0; j < 3; j++) F[j] = in ? F[j] : 0.0;
    P = in ? P : 0.0;
    const double Kd_all = K * br_pow_half(k.delta, s->normal.pK); /* NaN for delta < 0 */
    const int spring = hc & !pres;
    const double Kd = spring ? Kd_all : 0.0;
    /* selected after the energy, not before: from Kd gcc would compute 0 delta / (pK + 1) as a second arm */
    const double Eel = spring ? br_normal_energy(&s->normal, Kd_all, k.delta) : 0.0;
    const double Pnd = spring ? (N - Kd) * k.deltadot : 0.0; /* damping part of N times deltadot */
    const double Eb = br_friction_stored_energy(law, &s->fric, N, K, st, stride);
    const int stuck = br_point_stuck(law, &s->fric, k.v, s->v_stick, F, N);
    br_sums_point(q, in, &k, k.n, N, Eel, Pnd, F, P, Eb, stuck);
    if (t) {
        /* computed for every point and selected (no branch: the CPU loop stays vectorizable) */
        double kn, cn;
        br_hunt_crossley_tangent(&s->normal, K, D, k.delta, k.deltadot, &kn, &cn);
        t->kn = spring ? kn : 0.0;
        t->cn = spring ? cn : 0.0;
        t->Nd = spring ? N - Kd : 0.0; /* the damping part of N */
        for (int j = 0; j < 9; j++) t->ft.J[j] = in ? ft.J[j] : 0.0;
        for (int j = 0; j < 3; j++) {
            t->ft.jN[j] = in ? ft.jN[j] : 0.0;
            t->rw[j] = k.rw[j];
            t->n[j] = k.n[j];
        }
    }
}

/* Point i of set s over a step of length h: advances its state in place and
 * writes its force, moment, power and counts into the one-point sums q (q->F and
 * q->N are the point's friction force on A and normal force), and with t
 * (not NULL) fills what the point passes to its set's wrench tangent (point_tangent.h).
 * Out of contact (delta <= 0) the point carries no force and its bristle state is reset to zero.
 * A set with a prescribed normal force (f->Npt >= 0) keeps every point in contact with N = f->Npt
 * (no normal spring energy or damping, no normal stiffness). Every branch is a select: the
 * CPU loop vectorizes and GPU threads do not diverge. */
BR_HD void br_point_advance(int law, int surface, const br_set_view *s, const br_set_frame *f, double h,
                            long i, br_set_sums *q, br_point_tan *t)
{
    const double r[3] = {s->rx[i], s->ry[i], s->rz[i]};
    br_point_core(law, surface, s, f, h, r, s->K[i], s->D[i], s->state + i, s->n, q, t);
}

/* Point i of set s over a step of length h: br_point_advance without the tangent, its sums
 * added to acc. */
BR_HD void br_point_step(int law, int surface, const br_set_view *s, const br_set_frame *f, double h,
                         long i, br_set_sums *acc)
{
    br_set_sums q;
    br_point_advance(law, surface, s, f, h, i, &q, NULL);
    br_sums_combine(acc, &q);
}

/* Point i of set s over a step of length h, as br_point_step, with its
 * contribution returned as a one-point br_set_sums (F and N are the point's
 * friction force on A and normal force). Returned by value: a vectorized
 * caller then has no addressable per-point aggregate in its loop body (gcc
 * turns one into a per-lane array in memory, which does not vectorize). */
BR_HD br_set_sums br_point_sums(int law, int surface, const br_set_view *s, const br_set_frame *f,
                                double h, long i)
{
    br_set_sums q;
    br_point_advance(law, surface, s, f, h, i, &q, NULL);
    return q;
}

/* deforming interface s, point i -> its relative displacement u and velocity v (its frame) from s->iu */
BR_HD void br_iface_inputs(const br_set_view *s, long i, double u[3], double v[3])
{
    for (int j = 0; j < 3; j++) u[j] = s->iu[j * s->n + i], v[j] = s->iu[(3 + j) * s->n + i];
}

/* Point i of a deforming interface s (its inputs in s->iu) over a step of length h: its state
 * advanced, its outputs (BR_IFACE_*) written to s->ipt, its contribution returned as one-point sums
 * with the forces in world axes (rotated from its frame by s->iR; no moments: the point acts where
 * its nodes are, and the structure takes its force through its rows). */
BR_HD br_set_sums br_point_iface(int law, const br_set_view *s, double h, long i)
{
    const long n = s->n;
    double u[3], v[3];
    br_iface_inputs(s, i, u, v);
    br_set_frame f; /* the point's own: its relative velocity, no prescribed normal force */
    for (int j = 0; j < 3; j++) f.c[j] = v[j];
    f.Npt = -1.0;
    br_set_sums q;
    br_point_tan t;
    br_point_core(law, BR_SURF_LOCAL, s, &f, h, u, s->K[i], s->D[i], s->state + i, n, &q, &t);
    double *o = s->ipt;
    const double F[3] = {-q.F[0], -q.F[1], -q.F[2]}; /* q.F: the friction force on A, -F */
    for (int j = 0; j < 3; j++) {
        o[(BR_IFACE_F + j) * n + i] = q.Fc[j];
        o[(BR_IFACE_FF + j) * n + i] = F[j];
        o[(BR_IFACE_JN + j) * n + i] = t.ft.jN[j];
    }
    for (int j = 0; j < 9; j++) o[(BR_IFACE_J + j) * n + i] = t.ft.J[j];
    o[BR_IFACE_KN * n + i] = t.kn, o[BR_IFACE_CN * n + i] = t.cn, o[BR_IFACE_ND * n + i] = t.Nd;
    o[BR_IFACE_PND * n + i] = q.P_nd;
    /* to world axes: x_w = R^T x (R's rows the frame's axes) */
    double Fw[3], Fcw[3];
    for (int j = 0; j < 3; j++) {
        Fw[j] = s->iR[j * n + i] * q.F[0] + s->iR[(3 + j) * n + i] * q.F[1] + s->iR[(6 + j) * n + i] * q.F[2];
        Fcw[j] = s->iR[j * n + i] * q.Fc[0] + s->iR[(3 + j) * n + i] * q.Fc[1] + s->iR[(6 + j) * n + i] * q.Fc[2];
    }
    for (int j = 0; j < 3; j++) q.F[j] = Fw[j], q.Fc[j] = Fcw[j], q.Mc[j] = 0.0, q.Mf[j] = 0.0;
    if (s->outF) {
        for (int j = 0; j < 3; j++) s->outF[j * n + i] = Fw[j];
        s->outN[i] = q.N;
    }
    return q;
}

/* One point's sums and its tangent pieces (br_point_sums_tan). */
typedef struct br_point_tan_sums {
    br_set_sums q;      /* as br_point_sums */
    br_tan_pieces p;    /* br_tan_point_pieces of the point's tangent */
    double rw[3];       /* world offset from A's origin */
    double kn, cn, Nd;  /* as br_point_tan */
} br_point_tan_sums;

/* Point i of set s over a step of length h, as br_point_sums, with what it adds to the set's
 * wrench tangent as pieces (point_tangent.h): the terms it adds are products of these, so a
 * caller can add them up over many points at a time. By value, as br_point_sums. */
BR_HD br_point_tan_sums br_point_sums_tan(int law, int surface, const br_set_view *s, const br_set_frame *f,
                                          double h, long i)
{
    br_point_tan_sums o;
    br_point_tan t;
    br_point_advance(law, surface, s, f, h, i, &o.q, &t);
    o.p = br_tan_point_pieces(t.rw, t.n, t.kn, t.cn, &t.ft);
    for (int j = 0; j < 3; j++) o.rw[j] = t.rw[j];
    o.kn = t.kn, o.cn = t.cn, o.Nd = t.Nd;
    return o;
}

#endif
