/* friction_implicit.c: the friction slope matrix of a contact set (friction_implicit.h). */
#include "friction_implicit.h"

#include <string.h>

void br_set_friction_damping(const br_contact_set_desc *cs, const br_set_frame *f, double D[36])
{
    memset(D, 0, 36 * sizeof(double));
    for (long i = 0; i < cs->npoints; i++) {
        br_point_kin k;
        br_kin(f->surface, f, cs->r + 3 * i, &k);
        const double K = cs->K ? cs->K[i] : cs->K0, Dn = cs->D ? cs->D[i] : cs->D0;
        const int in = f->Npt >= 0.0 || k.delta > 0.0;
        if (!in) continue;
        const double N = f->Npt >= 0.0 ? f->Npt : br_hunt_crossley(&cs->normal, K, Dn, k.delta, k.deltadot);
        const double s = br_friction_slope(cs->law, &cs->fric, k.v, N);
        /* G = [I, -[rw]x] (3 x 6): column j < 3 is e_j, column 3 + j is e_j x rw */
        double G[18], PG[18];
        for (int j = 0; j < 3; j++) {
            double e[3] = {0, 0, 0}, c[3];
            e[j] = 1.0;
            br_cross3(e, k.rw, c);
            for (int r = 0; r < 3; r++) G[3 * j + r] = e[r], G[3 * (3 + j) + r] = c[r];
        }
        for (int j = 0; j < 6; j++) { /* P G: remove the normal component of each column */
            const double *g = G + 3 * j, gn = br_dot3(g, k.n);
            for (int r = 0; r < 3; r++) PG[3 * j + r] = g[r] - gn * k.n[r];
        }
        for (int a = 0; a < 6; a++) /* D += s G^T P G = s (P G)^T (P G) */
            for (int b = 0; b < 6; b++) D[6 * b + a] += s * br_dot3(PG + 3 * a, PG + 3 * b);
    }
}
