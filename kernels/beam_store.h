/* beam_store.h: where a batch of beam-model variants keeps its state, the same on the host and on a
 * device, and the per-variant steps over it (kernels/step/'s stages): host/step/beam_batch.c runs
 * them on the CPU, kernels/beam_cuda.cu in one thread a variant on a GPU, over arrays of the same
 * layout (the GPU's copied from and back to the host's). A variant's small state (nodes, body
 * states, energies, per-set integrals) is one record of doubles; its frames and set results are
 * arrays of structs a variant after another (the contact field reads and writes them so); the
 * structure's vectors have the variant innermost, as kernels/ga_step.h's batches. */
#ifndef BR_BEAM_STORE_H
#define BR_BEAM_STORE_H

#include "step/stages.h"

/* the sizes of a variant's arrays */
typedef struct br_beam_sizes {
    int n, nnode, nbody, nload, nset, nframe;
} br_beam_sizes;

/* offsets of a variant's record (doubles); the time, the bodies, the loads and the energy terms come
 * first, so that a study whose columns read only those brings back that prefix of each record
 * (br_beam_rec_lean) */
typedef struct br_beam_rec {
    long xnode, bx, bv, bw, load_val, E_upto, End_upto, setP, setPnd, setE, setEnd;
    long imp_E, imp_du, imp_dv, imp_dm, en, res_ref, p_drive, t, E, E_nd, size;
} br_beam_rec;

/* sizes -> the record's offsets */
BR_HD br_beam_rec br_beam_rec_make(const br_beam_sizes *z)
{
    br_beam_rec o;
    long k = 0;
    o.t = k++;
    o.bx = k, k += 3L * z->nbody;
    o.bv = k, k += 3L * z->nbody;
    o.bw = k, k += 3L * z->nbody;
    o.load_val = k, k += z->nload;
    o.en = k, k += (long)(sizeof(br_energy_terms) / sizeof(double));
    o.xnode = k, k += 3L * z->nnode;
    o.E_upto = k, k += z->nset;
    o.End_upto = k, k += z->nset;
    o.setP = k, k += z->nset;
    o.setPnd = k, k += z->nset;
    o.setE = k, k += z->nset;
    o.setEnd = k, k += z->nset;
    o.imp_E = k, k += 36L * z->nset;
    o.imp_du = k, k += 6L * z->nset;
    o.imp_dv = k, k += 6L * z->nset;
    o.imp_dm = k, k += 6L * z->nset;
    o.res_ref = k++;
    o.p_drive = k++;
    o.E = k, k += z->nset;
    o.E_nd = k, k += z->nset;
    o.size = k;
    return o;
}

/* record offsets, what a study reads (host/io/output.h's BR_OUT_* bits: bodies, loads, energy) -> the
 * doubles of each record's prefix that hold it (t always) */
BR_HD long br_beam_rec_lean(const br_beam_rec *o, int bodies, int loads, int energy)
{
    return energy ? o->xnode : loads ? o->en : bodies ? o->load_val : o->bx;
}

/* a batch's arrays (host or device) */
typedef struct br_beam_store {
    int nv, n, nset, nload, nframe;
    double h, tau_s;             /* the step; the structure's equation time after t_n */
    br_beam_rec o;
    double *rec;                 /* nv records */
    double *vec;                 /* up vp g gext gext_prev uprev vprev: n x nv each, the variant innermost */
    br_frame_state *frames;      /* nv x nframe: at t + tau, as the field and the loads see them */
    br_tf_flat *mag;             /* nv x nload: the load magnitudes */
    br_set_result *res;          /* nv x nset: the sets' results of the step */
    long *step;                  /* nv */
    int *code;                   /* nv: 0 running, else why the variant stopped (br_step_check's codes) */
    int *energy;                 /* nv: 1 where this step books the energy terms */
    double *Et;                  /* the CPU's lanes: every variant's E blocks (6 nr x nv, the variant
                                  * innermost) for the lanes' solve; NULL on a device */
} br_beam_store;

/* store, the structure's batch arrays, variant -> its view for kernels/step/ */
BR_HD void br_beam_store_var(const br_beam_store *D, const br_ga_arrays *A, long v, br_step_var *x)
{
    br_ga_arrays_var(A, v, &x->ga);
    const long vn = (long)D->n * D->nv;
    double *p = D->vec + v;
    x->up = p, x->vp = p + vn, x->g = p + 2 * vn, x->gext = p + 3 * vn, x->gext_prev = p + 4 * vn;
    x->uprev = p + 5 * vn, x->vprev = p + 6 * vn;
    x->s = D->nv;
    double *r = D->rec + v * D->o.size;
    x->xnode = r + D->o.xnode;
    x->frames = D->frames + v * D->nframe;
    x->bx = r + D->o.bx, x->bv = r + D->o.bv, x->bw = r + D->o.bw;
    x->load_val = r + D->o.load_val;
    x->mag = D->mag + v * D->nload;
    x->E_upto = r + D->o.E_upto, x->End_upto = r + D->o.End_upto, x->setP = r + D->o.setP, x->setPnd = r + D->o.setPnd;
    x->setE = r + D->o.setE, x->setEnd = r + D->o.setEnd;
    x->imp_E = r + D->o.imp_E, x->imp_du = r + D->o.imp_du, x->imp_dv = r + D->o.imp_dv, x->imp_dm = r + D->o.imp_dm;
    x->iu = NULL, x->ipt = NULL; /* no deforming interface in a beam batch (beam_batch.c refuses them) */
    x->en = (br_energy_terms *)(r + D->o.en);
    x->res_ref = r + D->o.res_ref, x->p_drive = r + D->o.p_drive;
    x->t = r[D->o.t];
    x->step = D->step[v];
    /* what a beam batch's variants do not have: free bodies, springs, rotational elements, substeps */
    x->fframes = 0, x->bq = x->f = x->tau = x->fext = x->text = x->acc = x->vpred = 0;
    x->spring_val = x->spring_angle = x->p_spring_loss = 0;
    x->rot_tau = x->rot_Eb = x->rot_E_upto = 0;
    x->kf_tau = x->kf_h = 0, x->wend = x->set_geo = x->set_vs = x->err = 0;
    x->h = D->h, x->tau_s = D->tau_s, x->h_prev = -1.0, x->gam = 1.0, x->theta_h = 0.0, x->substepping = 0;
    x->ga_en = 0;
}

/* The phases of a batch's step, in order, as BRISTLE_BEAM_TIMING reports them (each phase waited
 * for, on the GPU too): the frames, the field's point steps and its finish (the sets' sums from
 * their partials; on the CPU both in field), the stages after the field (forces_pre: set results,
 * loads, E blocks; solve: the structure's linear solve; forces_post: row changes, powers, checks;
 * on the CPU all three in forces_pre), the stop codes' copy, integrate, and the sampled steps'
 * copy (their scatter into each variant's data is the study's, in its analysis); then the batch's
 * setup, once: the variants' checks, the structure's batch, the store, the field, and the
 * device's copies (the CUDA backend) */
enum {
    BR_PH_FRAMES, BR_PH_FIELD, BR_PH_FIELD_FINISH, BR_PH_FORCES_PRE, BR_PH_SOLVE, BR_PH_FORCES_POST, BR_PH_CODES,
    BR_PH_INTEGRATE, BR_PH_SAMPLE_COPY, BR_PH_SETUP_CHECKS, BR_PH_SETUP_GA, BR_PH_SETUP_STORE, BR_PH_SETUP_FIELD,
    BR_PH_SETUP_DEVICE, BR_BEAM_NPHASE
};

/* model, shape, structure arrays, store, variant v -> its frames at the equation time and, where
 * sf is given, its sets' frames for the field (sf[v nset + s]) */
BR_HD void br_beam_store_frames(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                const br_beam_store *D, long v, br_set_frame *sf)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    br_step_frames(m, sh, &x);
    br_step_contacts_prepare(m, &x);
    for (int s = 0; sf && s < m->nset; s++) {
        const br_step_set *cs = &m->set[s];
        br_set_frame_make(cs->surface, cs->plane_p, cs->plane_n, cs->radius, &x.frames[cs->frame_a],
                          &x.frames[cs->frame_b], -1.0, &sf[v * m->nset + s]);
    }
}

/* model, shape, structure arrays, store, variants v0 to v0 + nl - 1 (nl <= BR_GA_LANES) -> their
 * frames as br_beam_store_frames gives each (no set frames): the structure bodies' in vector lanes */
BR_HD void br_beam_store_frames_lanes(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                      const br_beam_store *D, long v0, int nl)
{
    br_step_var x[BR_GA_LANES], *xs[BR_GA_LANES];
    for (int l = 0; l < nl; l++) br_beam_store_var(D, A, v0 + l, &x[l]), xs[l] = &x[l];
    br_step_frames_l(m, sh, xs, nl);
    for (int l = 0; l < nl; l++) br_step_contacts_prepare(m, &x[l]);
}

/* A step's forces stage in three parts: br_beam_store_forces_pre (loads, E blocks), the solve
 * (on the CPU br_beam_store_solve_begin and _end below, in lanes; on a device kernels/ga_step.h's
 * row phases over every variant, f: the store's g, E: the records' imp_E, kernels/beam_cuda.cu),
 * br_beam_store_forces_post. */

/* model, shape, structure arrays, store with variant v's set results, ga_en (its structure's kinetic
 * and elastic energy summed before, or NULL) -> its loads and E blocks */
BR_HD void br_beam_store_forces_pre(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                    const br_beam_store *D, long v, const double *ga_en)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    x.ga_en = ga_en;
    const br_set_result *r = D->res + v * m->nset;
    br_step_load_values(m, &x);
    br_step_loads(m, sh, &x, r, D->energy[v]);
    if (D->energy[v]) br_step_residual(x.en, x.res_ref);
    br_step_accel_pre(m, sh, &x, r);
}

/* model, shape, structure arrays, store with variant v solved (singular: its Woodbury system
 * was) -> its row changes, set powers and checks; D->code[v] and the return: 0, or br_step_check's
 * code (BR_STEP_SINGULAR * BR_STEP_WHAT: the Woodbury system) */
BR_HD int br_beam_store_forces_post(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                    const br_beam_store *D, long v, int singular)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    const br_set_result *r = D->res + v * m->nset;
    int code = BR_STEP_SINGULAR * BR_STEP_WHAT;
    if (!singular) {
        br_step_accel_post(m, sh, &x, r);
        code = br_step_check(m, sh, &x, r, D->energy[v]);
    }
    D->code[v] = code;
    return code;
}

/* The forces stage in lanes (the CPU's batch, every matrix a copy a variant), its Woodbury
 * systems solved by the caller between the two halves (the header's LU in lanes, or LAPACK's
 * dgesv lane by lane as a run solves them, host/step/beam_batch.c); each lane bitwise what that
 * variant's own step gives with the same LU. */

/* model, shape, structure arrays, store (D->Et allocated), variants v0 to v0 + nl - 1 -> their
 * loads and E blocks (br_beam_store_forces_pre), the E blocks copied to D->Et (the variant
 * innermost), x0 and the Woodbury systems I + E Y, E L x0 formed in the arrays' Ar and yq */
BR_HD void br_beam_store_solve_begin(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                     const br_beam_store *D, long v0, int nl)
{
    const int ne = m->nset ? 6 * sh->nr : 0;
    int energy = 0; /* the structure's energies in lanes where any lane books them */
    for (int l = 0; l < nl; l++) energy |= D->energy[v0 + l];
    double en[2][BR_GA_LANES] = {{0.0}};
    if (energy && nl > 1) {
        br_step_var x;
        br_beam_store_var(D, A, v0, &x);
        br_ga_energies_l(sh, &x.ga, nl, en[0], en[1]);
    }
    for (int l = 0; l < nl; l++) {
        const double ga_en[2] = {en[0][l], en[1][l]};
        br_beam_store_forces_pre(m, sh, A, D, v0 + l, energy && nl > 1 ? ga_en : (const double *)0);
        const double *E = D->rec + (v0 + l) * D->o.size + D->o.imp_E;
        for (int q = 0; q < ne; q++) D->Et[(long)q * D->nv + v0 + l] = E[q];
    }
    br_step_var x;
    br_beam_store_var(D, A, v0, &x);
    const double *E = ne ? D->Et + v0 : (const double *)0;
    br_ga_solve_begin_rhs_l(sh, &x.ga, x.g, x.s, E, D->nv, nl);
    if (ne) br_ga_woodbury_form_l(sh, &x.ga, E, D->nv, nl);
}

/* the same variants with their Woodbury systems solved in place (yq: q), rc[l] 0 or nonzero where
 * lane l's was singular -> a1 = x0 - Z q (x0 where singular), then br_beam_store_forces_post of
 * each; D->code of each */
BR_HD void br_beam_store_solve_end(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                   const br_beam_store *D, long v0, int nl, const int *rc)
{
    const int lr = m->nset && sh->nr > 0;
    int with_q[BR_GA_LANES];
    for (int l = 0; l < nl; l++) with_q[l] = lr && rc[l] == 0;
    br_step_var x;
    br_beam_store_var(D, A, v0, &x);
    br_ga_solve_end_l(sh, &x.ga, with_q, nl);
    for (int l = 0; l < nl; l++) br_beam_store_forces_post(m, sh, A, D, v0 + l, lr && rc[l] != 0);
}

/* The integration by rows (kernels/step/'s three phases over the store; on a GPU a thread
 * a row of a variant, then a thread a variant): the rows' works and the columns' loss terms go
 * through scratch arrays W and Q of n x nv, the variant innermost. */

/* shape, structure arrays, store, variant v, row i -> row i of v integrated, its loads' work in
 * W[i nv + v] */
BR_HD void br_beam_store_integrate_row(const br_ga_shape *sh, const br_ga_arrays *A, const br_beam_store *D, long v,
                                       int i, double *W)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    W[(long)i * D->nv + v] = br_step_integrate_row(sh, &x, i);
}

/* the same with every row of v integrated, column j -> its loss term in Q[j nv + v] */
BR_HD void br_beam_store_integrate_col(const br_ga_shape *sh, const br_ga_arrays *A, const br_beam_store *D, long v,
                                       int j, double *Q)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    Q[(long)j * D->nv + v] = br_step_integrate_col(sh, &x, j);
}

/* model, shape, structure arrays, store, variant v, W and Q filled -> v's energy terms booked
 * (the rows' and columns' terms added in order), its step and time advanced */
BR_HD void br_beam_store_integrate_end(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                       const br_beam_store *D, long v, const double *W, const double *Q)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    double wl = 0.0, ql = 0.0;
    for (int i = 0; i < sh->n; i++) wl += W[(long)i * D->nv + v];
    for (int j = 0; j < sh->n; j++) ql += Q[(long)j * D->nv + v];
    br_step_integrate_end(m, &x, wl, ql);
    br_step_count_step(m, &x);
    D->rec[v * D->o.size + D->o.t] = x.t;
    D->step[v] = x.step;
}

/* model, shape, structure arrays, store, variants v0 to v0 + BR_GA_LANES - 1 (every matrix a copy a
 * variant) -> each integrated to t_{n+1} as br_beam_store_integrate, the rows and the Rayleigh
 * columns in vector lanes (br_step_integrate_lanes): bitwise each one's own */
BR_HD void br_beam_store_integrate_lanes(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                         const br_beam_store *D, long v0)
{
    br_step_var x[BR_GA_LANES];
    double wc[BR_GA_LANES], wl[BR_GA_LANES], ql[BR_GA_LANES];
    for (int l = 0; l < BR_GA_LANES; l++) br_beam_store_var(D, A, v0 + l, &x[l]), wc[l] = br_step_load_wc(sh, &x[l]);
    br_step_integrate_lanes(sh, &x[0], BR_GA_LANES, wc, wl, ql);
    for (int l = 0; l < BR_GA_LANES; l++) {
        br_step_integrate_end(m, &x[l], wl[l], ql[l]);
        br_step_count_step(m, &x[l]);
        D->rec[(v0 + l) * D->o.size + D->o.t] = x[l].t;
        D->step[v0 + l] = x[l].step;
    }
}

/* model, shape, structure arrays, store, variant v -> integrated to t_{n+1} */
BR_HD void br_beam_store_integrate(const br_step_model *m, const br_ga_shape *sh, const br_ga_arrays *A,
                                   const br_beam_store *D, long v)
{
    br_step_var x;
    br_beam_store_var(D, A, v, &x);
    br_step_integrate(m, sh, &x);
    br_step_count_step(m, &x);
    D->rec[v * D->o.size + D->o.t] = x.t;
    D->step[v] = x.step;
}

#endif
