/* checkpoint.c: the state of br_data in checkpoint records (checkpoint.h) */
#include "step/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "field/field.h"

#define IO(tag, p, n) br_ckpt_io(c, tag, (p), (size_t)(n) * sizeof *(p))

int br_data_checkpoint(const br_model *m, br_data *d, br_ckpt *c)
{
    /* the Woodbury system's kept factor (genalpha.c) is not saved: dropped at every checkpoint, written or
     * read, and at every substep's snapshot, so a resumed run refactors where the uninterrupted one does */
    if (d->ga) d->ga->have_lu0 = 0;
    const int nb = m->nbody, ns = m->nset, nf = 1 + m->nbody + m->nkframe;
    const int nl = m->nload > 0 ? m->nload : 1, nsp = m->nspring > 0 ? m->nspring : 1;
    const int nr = m->nrot > 0 ? m->nrot : 1;
    IO("t", &d->t, 1), IO("step", &d->step, 1);
    IO("x", d->x, 3 * nb), IO("q", d->q, 4 * nb), IO("v", d->v, 3 * nb), IO("w", d->w, 3 * nb);
    IO("f", d->f, 3 * nb), IO("tau", d->tau, 3 * nb), IO("fext", d->fext, 3 * nb), IO("text", d->text, 3 * nb);
    IO("frames", d->frames, nf), IO("fframes", d->fframes, nf), IO("vpred", d->vpred, 6 * nb);
    IO("acc", d->acc, 6 * nb);
    if (ns > 0) IO("res", d->res, ns), IO("E_upto", d->E_upto, 6 * ns), IO("Nset", d->Nset, ns);
    IO("load_val", d->load_val, nl), IO("spring_val", d->spring_val, nsp), IO("spring_ang", d->spring_angle, nsp);
    IO("rot_z", d->rot_z, nr), IO("rot_tau", d->rot_tau, nr), IO("rot_Eb", d->rot_Eb, nr);
    IO("rot_E", d->rot_E, nr), IO("rot_E_upto", d->rot_E_upto, nr);
    IO("en", &d->en, 1), IO("res_ref", &d->res_ref, 1), IO("p_drive", &d->p_drive, 1);
    IO("p_spr_loss", &d->p_spring_loss, 1);
    IO("h_prev", &d->h_prev, 1), IO("level", &d->level, 1), IO("err", &d->err, 1), IO("calm", &d->calm, 1), IO("substeps", &d->sub, 1);
    if (ns > 0) IO("set_vs", d->set_vs, ns);
    IO("wend_ok", &d->wend_ok, 1);
    if (ns > 0) IO("wend", d->wend, 18 * ns);
    if (d->ga) {
        const int n = d->ga->n;
        IO("ga_u", d->ga->u, n), IO("ga_v", d->ga->v, n), IO("ga_a", d->ga->a, n), IO("ga_a1", d->ga->a1, n);
        IO("g", d->g, n), IO("gext", d->gext, n), IO("gext_prev", d->gext_prev, n);
        IO("uprev", d->uprev, n), IO("vprev", d->vprev, n), IO("up", d->up, n), IO("vp", d->vp, n);
        IO("xnode", d->xnode, 3 * d->st->nnode);
    }
    if (d->nimp > 0)
        IO("imp_du", d->imp_du, 6 * d->nimp), IO("imp_dv", d->imp_dv, 6 * d->nimp),
            IO("imp_dm", d->imp_dm, 6 * d->nimp), IO("imp_E", d->imp_E, 36 * d->nimp);
    if (d->drv) {
        br_drive_data *v = d->drv;
        const int n = m->drive.nshaft, ng = m->drive.ngear > 0 ? m->drive.ngear : 1;
        const int nsr = m->drive.nsrc > 0 ? m->drive.nsrc : 1, ncl = m->drive.ncl > 0 ? m->drive.ncl : 1;
        IO("dv_w", v->w, n), IO("dv_alpha", v->alpha, n), IO("dv_lam", v->lam, ng), IO("dv_src", v->src_tau, nsr);
        IO("dv_cl_tau", v->cl_tau, ncl), IO("dv_cl_w", v->cl_w, ncl), IO("dv_cl_z", v->cl_z, ncl);
        IO("dv_cl_Eb", v->cl_Eb, ncl), IO("dv_cl_E", v->cl_E, ncl), IO("dv_cl_mode", v->cl_mode, ncl);
        IO("dv_alpha_max", v->alpha_max, n), IO("dv_cl_taumax", v->cl_tau_max, 3 * ncl);
        IO("dv_work", &v->work_in, 1), IO("dv_newton", &v->newton_max, 1), IO("dv_switch", &v->mode_switches, 1);
    }
    if (d->field && br_field_checkpoint(d->field, c)) return -1;
    return c->failed ? -1 : 0;
}
