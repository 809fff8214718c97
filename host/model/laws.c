/* laws.c: the friction law table (laws.h). */
#include "model/laws.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const br_law_info LAWS[BR_LAW_COUNT] = {
    [BR_LAW_LUGRE3D] = {"lugre3d", {"mu_s", "mu_k", "V_st", "alpha", "sigma0", "sigma1", "sigma2"}, {"update"}, 0,
                        "projected modified LuGre, sigmas per unit normal force (physics.md 3.1)"},
    [BR_LAW_LUGRE3D_CLASSIC] = {"lugre3d_classic", {"mu_s", "mu_k", "V_st", "alpha", "sigma0", "sigma1", "sigma2"},
                                {"update", "G_min"}, 1, "classical LuGre in 3D, absolute sigmas (3.2)"},
    [BR_LAW_DAHL3D] = {"dahl3d", {"mu_k", "sigma0"}, {"update"}, 0, "Dahl, sigma0 per unit normal force (3.3)"},
    [BR_LAW_GKF] = {"gkf", {"mu_s", "mu_k", "V_st", "alpha", "eps"}, {"f_v"}, 0,
                    "regularized generalized kinetic friction, stateless (3.4)"},
    [BR_LAW_STATIC_REG] = {"static_reg", {"mu_s", "mu_k", "V_st", "alpha", "v_r"}, {"nu"}, 0,
                           "parabolic regularization, stateless (3.5)"},
    [BR_LAW_BRISTLE2] = {"bristle2", {"mu_s", "mu_k", "V_st", "alpha", "sigma0", "sigma1", "v_r"}, {"nu"}, 1,
                         "second-order bristle with asymmetric regularization, absolute sigmas (3.6)"},
    [BR_LAW_BRISTLE_IMPLICIT] = {"bristle_implicit", {"mu_s", "mu_k", "V_st", "alpha", "sigma0", "sigma1"},
                                 {"nu"}, 1, "massless bristle, implicit tip balance, absolute sigmas (3.7)"},
    [BR_LAW_GMS] = {"gms", {"mu_s", "mu_k", "V_st", "alpha", "C", "elements"}, {"nu", "sigma2"}, 1,
                    "generalized Maxwell-slip, absolute element stiffness and damping (3.8)"},
    [BR_LAW_JENKINS] = {"jenkins", {"mu"}, {"kt", "kt_area", "c_t"}, 1,
                        "elastic Coulomb element (Jenkins, elastic dry friction, macroslip): spring kt "
                        "per point (or kt_area per unit area) in series with a slider mu N, exact return mapping (3.9)"},
};

const br_law_info *br_law_info_of(int law)
{
    return law >= 0 && law < BR_LAW_COUNT ? &LAWS[law] : NULL;
}

int br_law_from_name(const char *name)
{
    for (int k = 0; k < BR_LAW_COUNT; k++)
        if (strcmp(name, LAWS[k].name) == 0) return k;
    return -1;
}

const char *br_law_name(int law)
{
    return (law >= 0 && law < BR_LAW_COUNT) ? LAWS[law].name : "?";
}

static int issue(br_law_issue *is, const char *key, int item, const char *item_key, const char *fmt, ...)
{
    if (is) {
        is->key = key, is->item = item, is->item_key = item_key;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(is->msg, sizeof is->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int br_law_check(int law, const br_friction_params *p, br_law_issue *is)
{
    if (law < 0 || law >= BR_LAW_COUNT) return issue(is, "law", -1, NULL, "unknown friction law");
    const char *nm = LAWS[law].name;
    const int dahl = law == BR_LAW_DAHL3D, gms = law == BR_LAW_GMS;
    const int tip = law == BR_LAW_BRISTLE2; /* bristle_implicit takes sigma1 = 0 (the return mapping) */
    if (!(p->mu_k >= 0.0 && isfinite(p->mu_k))) return issue(is, "mu_k", -1, NULL, "mu_k must be >= 0 (got %g)", p->mu_k);
    if (dahl && !(p->mu_k > 0.0)) return issue(is, "mu_k", -1, NULL, "dahl3d needs mu_k > 0");
    if (!dahl && !(p->mu_s >= p->mu_k && isfinite(p->mu_s)))
        return issue(is, "mu_s", -1, NULL, "mu_s (%g) < mu_k (%g): static friction must not be below kinetic",
                     p->mu_s, p->mu_k);
    if (!dahl && !(p->V_st > 0.0 && isfinite(p->V_st))) return issue(is, "V_st", -1, NULL, "V_st must be > 0");
    if (!dahl && !(p->alpha > 0.0 && br_pow_half_ok(p->alpha)))
        return issue(is, "alpha", -1, NULL, "alpha must be a multiple of 0.5 in (0, 4] (got %g)", p->alpha);
    if (law == BR_LAW_JENKINS) {
        if (p->kt_K != 0.0 && !(p->kt_K > 0.0 && isfinite(p->kt_K)))
            return issue(is, "kt_area", -1, NULL, "kt_area must be > 0 (got %g)", p->kt_K);
        if (p->kt_K == 0.0 && !(p->kt > 0.0 && isfinite(p->kt)))
            return issue(is, "kt", -1, NULL, "kt must be > 0 (got %g)", p->kt);
        if (!(p->c_t >= 0.0 && isfinite(p->c_t))) return issue(is, "c_t", -1, NULL, "c_t must be >= 0");
        if (!(p->mu_s == p->mu_k)) return issue(is, "mu", -1, NULL, "jenkins has one coefficient, mu");
    }
    if (br_law_nstate(law, p) > 0 && !gms && law != BR_LAW_JENKINS && !(p->sigma0 > 0.0 && isfinite(p->sigma0)))
        return issue(is, "sigma0", -1, NULL, "sigma0 must be > 0");
    if (!(p->sigma1 >= 0.0 && isfinite(p->sigma1))) return issue(is, "sigma1", -1, NULL, "sigma1 must be >= 0");
    if (tip && !(p->sigma1 > 0.0)) return issue(is, "sigma1", -1, NULL, "sigma1 must be > 0 for %s", nm);
    if (!(p->sigma2 >= 0.0 && isfinite(p->sigma2))) return issue(is, "sigma2", -1, NULL, "sigma2 must be >= 0");
    if (law == BR_LAW_GKF) {
        if (!(p->eps > 0.0)) return issue(is, "eps", -1, NULL, "eps must be > 0");
        if (!(p->eps < p->V_st)) return issue(is, "eps", -1, NULL, "eps must be below V_st");
    }
    if (!(p->f_v >= 0.0 && isfinite(p->f_v))) return issue(is, "f_v", -1, NULL, "f_v must be >= 0");
    if ((law == BR_LAW_STATIC_REG || law == BR_LAW_BRISTLE2) && !(p->v_r > 0.0 && isfinite(p->v_r)))
        return issue(is, "v_r", -1, NULL, "v_r must be > 0");
    if (!(p->nu >= 0.0 && isfinite(p->nu))) return issue(is, "nu", -1, NULL, "nu must be >= 0");
    if (law == BR_LAW_LUGRE3D_CLASSIC && !(p->G_min > 0.0 && isfinite(p->G_min)))
        return issue(is, "G_min", -1, NULL, "G_min must be > 0");
    if (p->update != BR_UPDATE_EXP && p->update != BR_UPDATE_EULER)
        return issue(is, "update", -1, NULL, "update must be exponential or euler");
    if (gms) {
        if (!(p->gms_C > 0.0 && isfinite(p->gms_C))) return issue(is, "C", -1, NULL, "C (attraction rate) must be > 0");
        if (!(p->gms_M >= 1 && p->gms_M <= BR_GMS_MAX))
            return issue(is, "elements", -1, NULL, "gms needs 1 to %d elements (got %d)", BR_GMS_MAX, p->gms_M);
        double sum = 0.0;
        for (int i = 0; i < p->gms_M; i++) {
            if (!(p->gms_k[i] > 0.0 && isfinite(p->gms_k[i])))
                return issue(is, "elements", i, "stiffness", "stiffness must be > 0");
            if (!(p->gms_s[i] >= 0.0 && isfinite(p->gms_s[i])))
                return issue(is, "elements", i, "damping", "damping must be >= 0");
            if (!(p->gms_alpha[i] > 0.0 && isfinite(p->gms_alpha[i])))
                return issue(is, "elements", i, "share", "share must be > 0");
            sum += p->gms_alpha[i];
        }
        if (!(fabs(sum - 1.0) < 1e-9))
            return issue(is, "elements", -1, NULL, "the element shares must sum to 1 (they sum to %.12g)", sum);
    }
    return 0;
}

double br_law_stick_stiffness(int law, const br_friction_params *p, double N, double K)
{
    switch (law) {
    case BR_LAW_LUGRE3D:
    case BR_LAW_DAHL3D: return p->sigma0 * N;
    case BR_LAW_LUGRE3D_CLASSIC:
    case BR_LAW_BRISTLE2:
    case BR_LAW_BRISTLE_IMPLICIT: return p->sigma0;
    case BR_LAW_JENKINS: return br_jenkins_kt(p, K);
    case BR_LAW_GMS: {
        double k = 0.0;
        for (int i = 0; i < p->gms_M; i++) k += p->gms_k[i];
        return k;
    }
    default: return 0.0;
    }
}

double br_law_steady_mu(int law, const br_friction_params *p, double v, double N)
{
    const double G = br_stribeck(p->mu_k, p->mu_s, v, p->V_st, p->alpha);
    switch (law) {
    case BR_LAW_LUGRE3D: return G + p->sigma2 * v;
    case BR_LAW_GKF: return v < p->eps ? p->mu_s * v / p->eps : G + p->f_v * v / N;
    case BR_LAW_LUGRE3D_CLASSIC: return G + p->sigma2 * v / N;
    case BR_LAW_STATIC_REG:
    case BR_LAW_BRISTLE2: return br_f_static_reg(p, v, 1.0);
    case BR_LAW_BRISTLE_IMPLICIT: return br_mu_static_reg(p, v);
    case BR_LAW_GMS: return br_mu_static_reg(p, v) + p->sigma2 * v;
    default: return p->mu_k; /* dahl3d, jenkins */
    }
}
