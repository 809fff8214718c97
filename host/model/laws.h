/* laws.h: the friction law library's metadata in one table: each law's name, the scenario
 * keys it reads, whether its sigmas are absolute, its validation and the stiffness of a stuck
 * point. The formulas themselves are in kernels/point_friction.h and point_bristle.h and the
 * state count per point in kernels/point_law.h (br_law_nstate: the device needs it). Scenario
 * loading (host/io/scenario.c), the field (host/field/field.c), the eigenanalysis (host/analysis/eig.c) and the
 * benchmark patches (host/field/patch.c) all read this table. */
#ifndef BR_LAWS_H
#define BR_LAWS_H

#include <stddef.h>

#include "kernels/point_law.h"

#define BR_LAW_MAX_REQ 8
#define BR_LAW_MAX_OPT 3

typedef struct br_law_info {
    const char *name;                      /* as in scenarios: "lugre3d", ... */
    const char *req[BR_LAW_MAX_REQ + 1];   /* friction keys the law needs (NULL-terminated) */
    const char *opt[BR_LAW_MAX_OPT + 1];   /* keys it may have */
    int sigma_abs;                         /* 1: sigma0 [N/m], sigma1 [N s/m] (gms: k_i, s_i) are absolute,
                                            * per point; 0: per unit normal force [1/m, s/m] */
    const char *summary;                   /* one line for messages and docs */
} br_law_info;

/* law (enum br_law) -> its entry, or NULL */
const br_law_info *br_law_info_of(int law);

/* name like "lugre3d" -> enum br_law, or -1 */
int br_law_from_name(const char *name);

/* law -> its name ("?" for an unknown law) */
const char *br_law_name(int law);

/* What is wrong with a parameter set: the scenario key to point at (for gms elements the
 * key "elements", the element index and the element's key) and a message. */
typedef struct br_law_issue {
    const char *key;
    int item;              /* gms element, or -1 */
    const char *item_key;  /* key inside that element, or NULL */
    char msg[200];
} br_law_issue;

/* law, parameters -> 0 if every value is finite and physical for that law; else -1 with the
 * issue filled (the one validation of friction parameters, for scenarios and the field alike) */
int br_law_check(int law, const br_friction_params *p, br_law_issue *issue);

/* law, parameters, normal force N and normal stiffness K of the point -> tangential stiffness of a
 * stuck point [N/m]:
 * sigma0 N (lugre3d, dahl3d), sigma0 (lugre3d_classic, bristle2, bristle_implicit), sum k_i (gms), kt (jenkins),
 * 0 for the velocity-regularized stateless laws (gkf, static_reg) */
double br_law_stick_stiffness(int law, const br_friction_params *p, double N, double K);

/* law, parameters, sliding speed v >= 0, a point's normal force N -> the friction coefficient of
 * steady sliding at v (the curve a friction loop mu(v) is drawn over): 3.5's Stribeck mu(v) with the
 * law's viscous term (lugre3d: + sigma2 v; lugre3d_classic: + sigma2 v / N; gkf: + f_v v / N, and
 * mu_s v / eps below eps; gms: + nu v + sigma2 v; bristle_implicit: + nu v), the regularized
 * f(v) / N of static_reg and bristle2, mu_k for dahl3d and jenkins */
double br_law_steady_mu(int law, const br_friction_params *p, double v, double N);

#endif
