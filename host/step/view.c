/* view.c: the run's data as the step's stages take it (kernels/step/): the flat model
 * compiled once from the model and the data's derived constants, and a view of one variant, every
 * array stride 1 (a run is a batch of one). In: model, data; out: br_step_model, br_step_var. */
#include <stdlib.h>
#include <string.h>

#include "step/data.h"

/* data -> d->view with every array pointer (they stay for the data's life) */
static void view_build(br_data *d)
{
    br_step_var *x = &d->view;
    memset(x, 0, sizeof *x);
    x->up = d->up, x->vp = d->vp, x->g = d->g, x->gext = d->gext, x->gext_prev = d->gext_prev;
    x->uprev = d->uprev, x->vprev = d->vprev, x->s = 1;
    x->xnode = d->xnode, x->frames = d->frames, x->fframes = d->fframes;
    x->bx = d->x, x->bv = d->v, x->bw = d->w, x->bq = d->q;
    x->f = d->f, x->tau = d->tau, x->fext = d->fext, x->text = d->text, x->acc = d->acc, x->vpred = d->vpred;
    x->load_val = d->load_val, x->mag = NULL;
    x->spring_val = d->spring_val, x->spring_angle = d->spring_angle;
    x->rot_tau = d->rot_tau, x->rot_Eb = d->rot_Eb, x->rot_E_upto = d->rot_E_upto;
    x->E_upto = d->E_upto, x->End_upto = d->End_upto, x->setP = d->setP, x->setPnd = d->setPnd;
    x->setE = d->setE, x->setEnd = d->setEnd;
    x->imp_E = d->imp_E, x->imp_du = d->imp_du, x->imp_dv = d->imp_dv, x->imp_dm = d->imp_dm;
    x->iu = d->iface_iu, x->ipt = d->iface_ipt;
    x->en = &d->en, x->res_ref = &d->res_ref, x->p_drive = &d->p_drive, x->p_spring_loss = &d->p_spring_loss;
    x->kf_tau = d->kf_ahead, x->kf_h = d->kf_ahead + (d->sm.nframe - 1 - d->sm.nbody); /* br_fwd_accel fills them */
    x->wend = d->wend, x->set_geo = d->set_geo, x->set_vs = d->set_vs, x->err = &d->err;
}

int br_data_compile(const br_model *m, br_data *d)
{
    const int nb = m->nbody, nl = m->nload, ns = m->nset, nk = m->nspring, nr = m->nrot;
    /* one block: node (int), q0, offset, fg, mass, Ib (doubles), loads, sets, springs, rotational elements */
    const size_t nd = (size_t)nb * (4 + 3 + 3 + 1 + 9);
    const size_t bytes = nd * sizeof(double) + (size_t)nl * sizeof(br_step_load) + (size_t)ns * sizeof(br_step_set) +
                         (size_t)nk * sizeof(br_step_spring) + (size_t)nr * sizeof(br_step_rot) + (size_t)nb * sizeof(int) + 16;
    char *mem = calloc(1, bytes);
    if (!mem) return -1;
    double *q0 = (double *)mem, *off = q0 + 4 * nb, *fg = off + 3 * nb, *mass = fg + 3 * nb, *Ib = mass + nb;
    br_step_load *load = (br_step_load *)(Ib + 9 * nb);
    br_step_set *set = (br_step_set *)(load + nl);
    br_step_spring *spring = (br_step_spring *)(set + ns);
    br_step_rot *rot = (br_step_rot *)(spring + nk);
    int *node = (int *)(rot + nr);
    for (int b = 0; b < nb; b++) {
        const br_body *B = &m->body[b];
        node[b] = body_node(m, d, b);
        memcpy(q0 + 4 * b, B->q0, sizeof(double[4]));
        memcpy(off + 3 * b, B->offset, sizeof(double[3]));
        for (int j = 0; j < 3; j++) fg[3 * b + j] = B->mass * m->gravity[j];
        mass[b] = B->mass;
        memcpy(Ib + 9 * b, B->Ib, sizeof(double[9]));
    }
    for (int l = 0; l < nl; l++) {
        const br_load *L = &m->load[l];
        load[l] = (br_step_load){.body = L->frame - 1, .torque = L->type == BR_LOAD_TORQUE, .body_axes = L->body_axes};
        if (L->type == BR_LOAD_VECTOR)
            load[l].vec = L->vec, load[l].row0 = d->st->row0[L->part - m->nbeam], load[l].nvec = m->sup[L->part - m->nbeam].n;
        memcpy(load[l].point, L->point, sizeof L->point);
        memcpy(load[l].dir, L->dir, sizeof L->dir);
    }
    for (int s = 0; s < ns; s++) {
        const br_contact_set_desc *cs = &m->cset[s].desc;
        set[s] = (br_step_set){.frame_a = cs->frame_a, .frame_b = cs->frame_b, .surface = cs->surface,
                             .radius = cs->radius, .coupled = d->set_imp[s] >= 0 || d->set_rb[s],
                             .imp = d->set_imp[s], .rb = d->set_rb[s], .prescribed = m->cset[s].prescribed,
                             .npoints = cs->npoints, .pK = cs->normal.pK};
        if (cs->iface) {
            const br_cset *c = &m->cset[s];
            set[s].iface = 1, set[s].row0 = d->st->row0[c->ipart - m->nbeam];
            set[s].Lp = c->Lp, set[s].Lj = c->Lj, set[s].Lx = c->Lx, set[s].g0 = c->g0;
        }
        memcpy(set[s].plane_p, cs->plane_p, sizeof cs->plane_p);
        memcpy(set[s].plane_n, cs->plane_n, sizeof cs->plane_n);
    }
    for (int k = 0; k < nk; k++) {
        const br_spring *S = &m->spring[k];
        spring[k] = (br_step_spring){.frame_a = S->frame_a, .frame_b = S->frame_b, .torsion = S->torsion, .rope = S->rope,
                                   .k = S->k, .c = S->c, .rest = S->rest};
        memcpy(spring[k].pa, S->pa, sizeof S->pa);
        memcpy(spring[k].pb, S->pb, sizeof S->pb);
        memcpy(spring[k].axis, S->axis, sizeof S->axis);
    }
    for (int k = 0; k < nr; k++) {
        rot[k] = (br_step_rot){.frame_a = m->rot[k].frame_a, .frame_b = m->rot[k].frame_b};
        memcpy(rot[k].axis, m->rot[k].axis, sizeof rot[k].axis);
    }
    d->sm_mem = mem;
    d->sm = (br_step_model){.nnode = d->st ? d->st->nnode : 0, .nbody = nb, .nload = nl, .nset = ns, .nspring = nk,
                          .nrot = nr, .nframe = br_model_nframe(m), .dof = d->st ? d->st->dof : NULL,
                          .X = d->st ? d->st->X : NULL, .body_node = node, .body_q0 = q0, .body_offset = off,
                          .body_fg = fg, .body_mass = mass, .body_Ib = Ib, .rb_slot = d->rb_slot,
                          .rb_spring = d->rb_spring, .load = load, .set = set, .spring = spring, .rot = rot,
                          .h = m->dt, .adaptive = m->adaptive, .atol = m->atol, .rtol = m->rtol};
    view_build(d);
    return 0;
}

br_step_var *br_data_var(br_data *d, double h, const br_ga_shape **sh)
{
    br_step_var *x = &d->view;
    if (d->ga) br_genalpha_view(d->ga, &d->view_sh, &x->ga); /* at the integrator's current level */
    x->h = h, x->tau_s = d->tau_s, x->h_prev = d->h_prev, x->gam = d->gam, x->theta_h = d->theta_h;
    x->substepping = d->substepping;
    x->ga_en = NULL;
    x->t = d->t, x->step = d->step;
    *sh = d->ga ? &d->view_sh : NULL;
    return x;
}
