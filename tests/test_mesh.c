/* test_mesh.c: mesh import through assimp (OBJ, ASCII and binary STL, PLY), checks on bad
 * meshes, sampling areas, and the S3a clutch torque on meshed faces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvread.h"
#include "mesh.h"

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Z3[3] = {0, 0, 0};

static const char *tmpfile_with(const char *name, const void *data, size_t len)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/mesh-%d-%s", TEST_TMP, (int)getpid(), name);
    FILE *fp = fopen(path, "wb");
    cr_assert(fp);
    fwrite(data, 1, len, fp);
    fclose(fp);
    return path;
}

/* the shipped meshes load, and both samplings carry the mesh area to 1e-12; the areas match
 * the analytic face areas to the float precision assimp stores vertices in (1e-6) */
Test(mesh, shipped_meshes_and_sampling_areas)
{
    static const struct { const char *file; double area; } M[] = {
        {"annulus_1e3.ply", 0}, {"cube_bottom.obj", 0.01}, {"tieboss_face.stl", 0.02 * 0.0245}};
    for (int k = 0; k < 3; k++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/meshes/%s", SOURCE_DIR, M[k].file);
        br_mesh *m = br_mesh_load(path, 1.0, I3, Z3, err, sizeof err);
        cr_assert(m, "%s", err);
        const double A = br_mesh_area(m);
        double *r, *a, sv = 0, ss = 0;
        const long nv = br_mesh_sample_vertices(m, &r, &a);
        for (long i = 0; i < nv; i++) sv += a[i];
        free(r), free(a);
        const long ns = br_mesh_sample_spacing(m, 0.002, &r, &a);
        for (long i = 0; i < ns; i++) ss += a[i];
        free(r), free(a);
        printf("mesh %s: %ld vertices, %ld triangles, area %.12g; vertex sampling %ld points (%.1e), spacing 2 mm "
               "%ld points (%.1e)\n",
               M[k].file, m->nv, m->nt, A, nv, fabs(sv / A - 1), ns, fabs(ss / A - 1));
        cr_expect(fabs(sv / A - 1) < 1e-12 && fabs(ss / A - 1) < 1e-12);
        if (M[k].area > 0) cr_expect(fabs(A / M[k].area - 1) < 1e-6, "area %.12g vs %.12g", A, M[k].area);
        br_mesh_free(m);
    }
}

/* binary STL written here (2 triangles of the unit square, normals +z) reads like the text one */
Test(mesh, binary_stl)
{
    unsigned char buf[84 + 2 * 50] = {0};
    const uint32_t n = 2;
    memcpy(buf + 80, &n, 4);
    const float tri[2][12] = {{0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0}, {0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0}};
    for (int t = 0; t < 2; t++) memcpy(buf + 84 + 50 * t, tri[t], 48);
    char err[512];
    br_mesh *m = br_mesh_load(tmpfile_with("sq.stl", buf, sizeof buf), 1.0, I3, Z3, err, sizeof err);
    cr_assert(m, "%s", err);
    double nrm[3];
    br_mesh_normal(m, nrm);
    printf("mesh: binary STL square: %ld vertices, area %.17g, normal %g %g %g\n", m->nv, br_mesh_area(m), nrm[0],
           nrm[1], nrm[2]);
    cr_expect_eq(m->nv, 4);
    cr_expect(fabs(br_mesh_area(m) - 1.0) < 1e-15 && fabs(nrm[2] - 1.0) < 1e-15);
    br_mesh_free(m);
}

/* malformed meshes are rejected with "path: message" */
Test(mesh, malformed_meshes_are_rejected)
{
    unsigned char trunc[84 + 20] = {0};
    const uint32_t n = 10; /* says 10 triangles, holds 20 bytes */
    memcpy(trunc + 80, &n, 4);
    static const struct { const char *name, *text; size_t len; const char *words; } B[] = {
        {"empty.obj", "", 0, "not a readable mesh"},
        {"nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 0, "non-finite"},
        {"notmesh.obj", "this is not a mesh at all\n", 0, "not a readable mesh"},
        {"flip.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 4 3\n", 0, "inconsistent orientation"},
        {"degenerate.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n", 0, "zero area"},
    };
    char err[1024];
    for (size_t k = 0; k < sizeof B / sizeof B[0]; k++) {
        const char *p = tmpfile_with(B[k].name, B[k].text, strlen(B[k].text));
        br_mesh *m = br_mesh_load(p, 1.0, I3, Z3, err, sizeof err);
        printf("mesh: %-15s -> %s\n", B[k].name, m ? "accepted" : err);
        cr_expect(m == NULL, "%s was accepted", B[k].name);
        cr_expect(strstr(err, p) && strstr(err, B[k].words), "%s: %s", B[k].name, err);
        br_mesh_free(m);
    }
    const char *p = tmpfile_with("trunc.stl", trunc, sizeof trunc);
    br_mesh *m = br_mesh_load(p, 1.0, I3, Z3, err, sizeof err);
    printf("mesh: truncated STL   -> %s\n", m ? "accepted" : err);
    cr_expect(m == NULL && strstr(err, p));
    br_mesh_free(m);
}

/* S3a: the steady-slip torque of the meshed clutch face (fixture runs of clutch_patch_1e3, 1e4)
 * equals mu_k F_n (2/3)(R_o^3 - R_i^3)/(R_o^2 - R_i^2) within 0.5 % (measured: a few 1e-9). */
Test(mesh, clutch_patch_torque)
{
    static const char *const runs[] = {"1e3", "1e4"};
    const double Ri = 0.05, Ro = 0.1, T = 0.12 * 1000 * (2.0 / 3) * (Ro * Ro * Ro - Ri * Ri * Ri) / (Ro * Ro - Ri * Ri);
    for (int k = 0; k < 2; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/clutch_%s/timeseries.csv", TEST_TMP, runs[k]);
        csv_table *t = csv_read(path);
        cr_assert(t, "cannot read %s: run through ctest (fixture s3_run_clutch_%s)", path, runs[k]);
        const int cm = csv_col(t, "face.Mz"), cn = csv_col(t, "face.N"), cp = csv_col(t, "face.ncontact");
        cr_assert(cm >= 0 && cn >= 0);
        const double Mz = csv_at(t, t->nrows - 1, cm), N = csv_at(t, t->nrows - 1, cn);
        printf("S3a clutch_patch_%s: %g points, torque %.10g N m vs %.10g (%.1e), N = %.9g N\n", runs[k],
               csv_at(t, t->nrows - 1, cp), Mz, T, fabs(Mz / T - 1), N);
        cr_expect(fabs(Mz / T - 1) < 0.005);
        cr_expect(fabs(N / 1000 - 1) < 1e-6);
        csv_free(t);
    }
}
