/* test_mesh.c: mesh import through assimp (OBJ, ASCII and binary STL, PLY), checks on bad
 * meshes, sampling areas, and the S3a clutch torque on meshed faces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csvread.h"
#include "field/field.h"
#include "io/mesh.h"

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
        {"annulus_1e3.ply", 0}, {"cube_bottom.obj", 0.01}, {"tieboss_face.stl", 0.02 * 0.0245},
        {"brake_pad.obj", 0}, {"sphere_cap.obj", 0}};
    for (int k = 0; k < 5; k++) {
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

/* S3b (slow fixture s3_run_cube_mesh_1e4): the meshed cube face (1e4 points) holds 0.75 N within
 * 1 % during 2.2-3.0 s and slips within 0.05 s of the six-point S1 run (fixture s1_run_cube_00). */
static double slip_onset(const csv_table *t)
{
    const int ct = csv_col(t, "t"), vx = csv_col(t, "cube.vx"), vy = csv_col(t, "cube.vy"), vz = csv_col(t, "cube.vz");
    for (long r = 0; r < t->nrows; r++) {
        const double v = sqrt(csv_at(t, r, vx) * csv_at(t, r, vx) + csv_at(t, r, vy) * csv_at(t, r, vy) +
                              csv_at(t, r, vz) * csv_at(t, r, vz));
        if (v > 1e-3) return csv_at(t, r, ct);
    }
    return -1;
}

Test(mesh_slow, cube_mesh_matches_s1)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cube_mesh_1e4/timeseries.csv", TEST_TMP);
    csv_table *M = csv_read(path);
    cr_assert(M, "cannot read %s: run ctest -L slow (fixture s3_run_cube_mesh_1e4)", path);
    snprintf(path, sizeof path, "%s/s1/cube_00/timeseries.csv", TEST_TMP);
    csv_table *S = csv_read(path);
    cr_assert(S, "cannot read %s (fixture s1_run_cube_00)", path);
    const int ct = csv_col(M, "t"), ft = csv_col(M, "base.Ft"), np = csv_col(M, "base.ncontact");
    double worst = 0;
    for (long r = 0; r < M->nrows; r++) {
        const double tt = csv_at(M, r, ct);
        if (tt >= 2.2 && tt <= 3.0) worst = fmax(worst, fabs(csv_at(M, r, ft) - 0.75) / 0.75);
    }
    const double tm = slip_onset(M), ts = slip_onset(S);
    printf("S3b cube_mesh_1e4: %g points in contact; hold |F| within %.3g of 0.75 N; slip onset %.4f s vs %.4f s "
           "for six points (%.4f s apart)\n",
           csv_at(M, M->nrows / 2, np), worst, tm, ts, fabs(tm - ts));
    cr_expect(worst < 0.01);
    cr_expect(tm > 0 && fabs(tm - ts) < 0.05);
    csv_free(M), csv_free(S);
}

/* The surfaces the field snapshots draw (host/io/fields.c; the files themselves are read by VTK in
 * tests/python/test_fields_vtk.py): with sampling: spacing, sub-triangle i has point i at its
 * centroid and point i's area; with sampling: vertices, a third of each triangle's area summed at
 * its renumbered corners gives each point's area. Both to 1e-12 of the patch size / area. */
Test(mesh, snapshot_surfaces_match_the_points)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/meshes/annulus_1e3.ply", SOURCE_DIR);
    br_mesh *m = br_mesh_load(path, 1.0, I3, Z3, err, sizeof err);
    cr_assert(m, "%s", err);
    const double h = 0.005;
    double *r, *a, *V;
    long nv, *T;
    const long np = br_mesh_sample_spacing(m, h, &r, &a), nt = br_mesh_surface_spacing(m, h, &V, &nv, &T);
    cr_assert(np > 0 && nt == np, "%ld points, %ld sub-triangles", np, nt);
    double worst_c = 0, worst_a = 0;
    for (long i = 0; i < nt; i++) {
        const double *p0 = V + 3 * T[3 * i], *p1 = V + 3 * T[3 * i + 1], *p2 = V + 3 * T[3 * i + 2];
        double e1[3], e2[3], c[3];
        for (int j = 0; j < 3; j++) {
            worst_c = fmax(worst_c, fabs((p0[j] + p1[j] + p2[j]) / 3 - r[3 * i + j]) / 0.1);
            e1[j] = p1[j] - p0[j], e2[j] = p2[j] - p0[j];
        }
        br_cross3(e1, e2, c);
        worst_a = fmax(worst_a, fabs(0.5 * br_norm3(c) - a[i]) / a[i]);
    }
    printf("spacing %g: %ld sub-triangles over %ld lattice vertices; centroids within %.2g of the patch's outer "
           "radius, areas within %.2g\n", h, nt, nv, worst_c, worst_a);
    cr_expect(worst_c < 1e-12 && worst_a < 1e-9);
    free(r), free(a), free(V), free(T);
    const long np2 = br_mesh_sample_vertices(m, &r, &a), nt2 = br_mesh_surface_vertices(m, &T);
    cr_assert(np2 > 0 && nt2 == m->nt);
    double *sum = calloc((size_t)np2, sizeof(double)), worst = 0;
    for (long t = 0; t < nt2; t++) {
        double e1[3], e2[3], c[3];
        const double *p0 = r + 3 * T[3 * t], *p1 = r + 3 * T[3 * t + 1], *p2 = r + 3 * T[3 * t + 2];
        for (int j = 0; j < 3; j++) e1[j] = p1[j] - p0[j], e2[j] = p2[j] - p0[j];
        br_cross3(e1, e2, c);
        for (int k = 0; k < 3; k++) sum[T[3 * t + k]] += br_norm3(c) / 6;
    }
    for (long i = 0; i < np2; i++) worst = fmax(worst, fabs(sum[i] - a[i]) / a[i]);
    printf("vertices: %ld triangles over %ld points; areas from the renumbered triangles within %.2g\n", nt2, np2, worst);
    cr_expect(worst < 1e-12);
    free(sum), free(r), free(a), free(T);
    br_mesh_free(m);
}

/* S3a, second half: the rotational clutch element of physics.md section 4 must give the same
 * torque as the meshed patch. That element arrives with the friction model library (issue 6);
 * until then this test is skipped with that reason, never passed. */
Test(mesh, clutch_patch_matches_rotational_clutch_element)
{
    printf("SKIP mesh::clutch_patch_matches_rotational_clutch_element: pending, the rotational clutch element "
           "(physics.md section 4) is not implemented yet (friction model library, issue 6)\n");
    cr_skip_test("pending: rotational clutch element not implemented yet (issue 6)");
}

/* A meshed ball pressed into a plane: meshes/sphere_cap.obj (R = 0.01 m, vertex sampling) at a
 * depth delta0 = 2e-4 m. With per-area Hunt-Crossley (N_i = A_i delta_i^2 / sigma^2) the exact
 * total over the spherical surface is N = (2 pi R / sigma^2) integral_0^delta0 (delta0 - u)^2 du
 * = 2 pi R delta0^3 / (3 sigma^2) (u = R (1 - cos a) the height above the apex). The mesh's flat
 * facets and lumped vertex areas approximate it (20 rings): checked to 1e-3 (measured 1.9e-4). */
Test(mesh, sphere_cap_on_plane_total_force)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/meshes/sphere_cap.obj", SOURCE_DIR);
    br_mesh *m = br_mesh_load(path, 1.0, I3, Z3, err, sizeof err);
    cr_assert(m, "%s", err);
    double *r, *a;
    const long np = br_mesh_sample_vertices(m, &r, &a);
    br_mesh_free(m);
    const double R = 0.01, sig = 3e-9, d0 = 2e-4;
    double *K = malloc((size_t)np * sizeof(double)), *D = calloc((size_t)np, sizeof(double));
    for (long i = 0; i < np; i++) K[i] = a[i] / (sig * sig);
    br_contact_set_desc d = {0};
    d.name = "ball";
    d.frame_a = 1, d.frame_b = 0;
    d.plane_p[2] = d0, d.plane_n[2] = 1.0;
    d.npoints = np, d.r = r, d.K = K, d.D = D;
    d.normal.pK = 2.0, d.normal.pD = 0.5;
    d.law = BR_LAW_DAHL3D;
    d.fric.mu_k = d.fric.mu_s = 0.1, d.fric.sigma0 = 1e4;
    br_field *f = br_field_create(&d, 1, BR_BACKEND_CPU, err, sizeof err);
    cr_assert(f, "%s", err);
    br_frame_state fr[2];
    memset(fr, 0, sizeof fr);
    fr[0].R[0] = fr[0].R[4] = fr[0].R[8] = fr[1].R[0] = fr[1].R[4] = fr[1].R[8] = 1.0;
    br_set_result res;
    cr_assert_eq(br_field_step(f, fr, NULL, 1e-5, &res, err, sizeof err), 0, "%s", err);
    const double Nexact = 2 * 3.14159265358979323846 * R * d0 * d0 * d0 / (3 * sig * sig);
    printf("mesh: sphere cap (%ld points, %ld in contact) pressed %.1e m: N = %.6g N, exact %.6g N (%.2e)\n", np,
           res.ncontact, d0, res.N, Nexact, fabs(res.N / Nexact - 1));
    cr_expect(fabs(res.N / Nexact - 1) < 1e-3);
    br_field_destroy(f);
    free(r), free(a), free(K), free(D);
}
