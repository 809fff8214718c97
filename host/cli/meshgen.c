/* meshgen.c: `bristle mesh annulus|grid|disk ... --out FILE` writes flat triangle
 * meshes in the z = 0 plane for large contact patches, so big meshes are made on
 * demand instead of kept in the repository. Output: binary little-endian PLY
 * (.ply) or Wavefront OBJ (.obj); either is read back through assimp. Writing
 * these two formats is a few lines; reading is always the library's job. */
#include "cli/meshgen.h"
#include "base/parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct gen_mesh {
    long nv, nt;
    double *V;
    long *T;
} gen_mesh;

static int usage(FILE *o)
{
    fprintf(o, "usage: bristle mesh annulus --r-in R0 --r-out R1 --n-radial N --n-around M --out FILE\n"
               "       bristle mesh disk --radius R --n-radial N --n-around M --out FILE\n"
               "       bristle mesh grid --size LX LY --count NX NY --out FILE\n"
               "  a flat triangle mesh in the plane z = 0, written as binary PLY (.ply) or OBJ (.obj);\n"
               "  --facing +z|-z (default -z): the side the triangles' normals point to (the contact side)\n");
    return o == stderr ? 2 : 0;
}

/* quad (a, b, c, d counter-clockwise seen from +z) -> two triangles, flipped for -z */
static void quad(gen_mesh *g, long a, long b, long c, long d, int up)
{
    long *t = g->T + 3 * g->nt;
    if (up) t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
    else t[0] = a, t[1] = c, t[2] = b, t[3] = a, t[4] = d, t[5] = c;
    g->nt += 2;
}

/* mesh, path -> written to path.part and renamed to path when whole; 0 or -1 */
static int write_mesh_file(const gen_mesh *g, const char *path, const char *tmp);

static int write_mesh(const gen_mesh *g, const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    const int rc = write_mesh_file(g, path, tmp);
    if (rc == 0 && rename(tmp, path) == 0) return 0;
    unlink(tmp);
    return -1;
}

static int write_mesh_file(const gen_mesh *g, const char *path, const char *tmp)
{
    const char *dot = strrchr(path, '.');
    FILE *fp = fopen(tmp, "wb");
    if (!fp) return -1;
    if (dot && !strcmp(dot, ".obj")) {
        fprintf(fp, "# bristle mesh: %ld vertices, %ld triangles\n", g->nv, g->nt);
        for (long i = 0; i < g->nv; i++) fprintf(fp, "v %.17g %.17g %.17g\n", g->V[3 * i], g->V[3 * i + 1], g->V[3 * i + 2]);
        for (long t = 0; t < g->nt; t++) fprintf(fp, "f %ld %ld %ld\n", g->T[3 * t] + 1, g->T[3 * t + 1] + 1, g->T[3 * t + 2] + 1);
    } else {
        fprintf(fp, "ply\nformat binary_little_endian 1.0\ncomment bristle mesh\nelement vertex %ld\n"
                    "property double x\nproperty double y\nproperty double z\nelement face %ld\n"
                    "property list uchar int vertex_indices\nend_header\n",
                g->nv, g->nt);
        fwrite(g->V, sizeof(double), (size_t)g->nv * 3, fp); /* x86-64 and ARM hosts are little-endian */
        for (long t = 0; t < g->nt; t++) {
            const uint8_t n = 3;
            const int32_t idx[3] = {(int32_t)g->T[3 * t], (int32_t)g->T[3 * t + 1], (int32_t)g->T[3 * t + 2]};
            fwrite(&n, 1, 1, fp);
            fwrite(idx, sizeof idx, 1, fp);
        }
    }
    const int bad = ferror(fp);
    return (fclose(fp) || bad) ? -1 : 0;
}

/* ring radii r0..r1 in nr steps, m around (m vertices per ring); disk: r0 = 0 with a centre fan */
static int gen_round(gen_mesh *g, double r0, double r1, long nr, long m, int up)
{
    const int disk = r0 == 0.0;
    g->nv = (disk ? 1 : 0) + (nr + (disk ? 0 : 1)) * m;
    g->nt = 0;
    g->V = malloc((size_t)g->nv * 3 * sizeof(double));
    g->T = malloc((size_t)(2 * nr * m + m) * 3 * sizeof(long));
    if (!g->V || !g->T) return -1;
    long v = 0;
    if (disk) g->V[0] = g->V[1] = g->V[2] = 0.0, v = 1;
    for (long a = disk ? 1 : 0; a <= nr; a++) {
        const double r = r0 + (r1 - r0) * (double)a / (double)nr;
        for (long b = 0; b < m; b++, v++) {
            const double ph = 6.283185307179586 * (double)b / (double)m;
            g->V[3 * v] = r * cos(ph), g->V[3 * v + 1] = r * sin(ph), g->V[3 * v + 2] = 0.0;
        }
    }
    const long first = disk ? 1 : 0;
    if (disk) /* centre fan to the first ring */
        for (long b = 0; b < m; b++) {
            long *t = g->T + 3 * g->nt++;
            const long p = first + b, q = first + (b + 1) % m;
            t[0] = 0, t[1] = up ? p : q, t[2] = up ? q : p;
        }
    const long rings = disk ? nr - 1 : nr;
    for (long a = 0; a < rings; a++)
        for (long b = 0; b < m; b++) {
            const long i0 = first + a * m + b, i1 = first + a * m + (b + 1) % m;
            quad(g, i0, i0 + m, i1 + m, i1, up); /* counter-clockwise seen from +z */
        }
    return 0;
}

static int gen_grid(gen_mesh *g, double lx, double ly, long nx, long ny, int up)
{
    g->nv = (nx + 1) * (ny + 1);
    g->nt = 0;
    g->V = malloc((size_t)g->nv * 3 * sizeof(double));
    g->T = malloc((size_t)(2 * nx * ny) * 3 * sizeof(long));
    if (!g->V || !g->T) return -1;
    for (long j = 0; j <= ny; j++)
        for (long i = 0; i <= nx; i++) {
            const long v = j * (nx + 1) + i;
            g->V[3 * v] = lx * ((double)i / nx - 0.5), g->V[3 * v + 1] = ly * ((double)j / ny - 0.5), g->V[3 * v + 2] = 0;
        }
    for (long j = 0; j < ny; j++)
        for (long i = 0; i < nx; i++) {
            const long a = j * (nx + 1) + i;
            quad(g, a, a + 1, a + nx + 2, a + nx + 1, up);
        }
    return 0;
}

/* option, text, range -> *v, a whole number in [lo, hi] as a double; 0, or -1 with a message */
static int whole(const char *opt, const char *s, long lo, long hi, double *v)
{
    long n;
    if (br_arg_long("mesh", opt, s, lo, hi, &n)) return -1;
    *v = (double)n;
    return 0;
}

int br_meshgen_main(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) return usage(argc < 1 ? stderr : stdout);
    const char *kind = argv[0], *out = NULL;
    double r0 = -1, r1 = -1, R = -1, lx = -1, ly = -1, nr = -1, m = -1, nx = -1, ny = -1;
    int up = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int more = i + 1 < argc, two = i + 2 < argc;
        /* lengths: positive, at most 1e6 (metres or file units); counts: at most 1e5 per direction,
         * so a mesh has at most 1e10 elements' worth of indices in range and no overflow */
        const double LMAX = 1e6, NMAX = 1e5;
        int bad = 0;
        if (!strcmp(a, "--out") && more) out = argv[++i];
        else if (!strcmp(a, "--r-in") && more) bad = br_arg_double("mesh", a, argv[++i], 0, LMAX, &r0);
        else if (!strcmp(a, "--r-out") && more) bad = br_arg_double("mesh", a, argv[++i], 1e-12, LMAX, &r1);
        else if (!strcmp(a, "--radius") && more) bad = br_arg_double("mesh", a, argv[++i], 1e-12, LMAX, &R);
        else if (!strcmp(a, "--n-radial") && more) bad = whole(a, argv[++i], 1, NMAX, &nr);
        else if (!strcmp(a, "--n-around") && more) bad = whole(a, argv[++i], 3, NMAX, &m);
        else if (!strcmp(a, "--size") && two)
            bad = br_arg_double("mesh", a, argv[i + 1], 1e-12, LMAX, &lx) ||
                  br_arg_double("mesh", a, argv[i + 2], 1e-12, LMAX, &ly),
            i += 2;
        else if (!strcmp(a, "--count") && two)
            bad = whole(a, argv[i + 1], 1, NMAX, &nx) || whole(a, argv[i + 2], 1, NMAX, &ny), i += 2;
        else if (!strcmp(a, "--facing") && more) {
            const char *f = argv[++i];
            if (!strcmp(f, "+z")) up = 1;
            else if (strcmp(f, "-z")) return usage(stderr);
        } else {
            fprintf(stderr, "bristle mesh: unknown or incomplete option '%s'\n", a);
            return usage(stderr);
        }
        if (bad) return 2;
    }
    gen_mesh g = {0, 0, NULL, NULL};
    int rc = -2;
    /* the PLY file holds 32-bit indices; 1e8 triangles (about 5 GB in memory) is the cap */
    const double ntri = !strcmp(kind, "grid") ? 2 * nx * ny : 2 * nr * m + m;
    if (ntri > 1e8) {
        fprintf(stderr, "bristle mesh: %.3g triangles asked for; at most 1e8\n", ntri);
        return 2;
    }
    if (!out) fprintf(stderr, "bristle mesh: --out FILE is required\n");
    else if (!strcmp(kind, "annulus") && r0 > 0 && r1 > r0 && nr >= 1 && m >= 3)
        rc = gen_round(&g, r0, r1, (long)nr, (long)m, up);
    else if (!strcmp(kind, "disk") && R > 0 && nr >= 1 && m >= 3) rc = gen_round(&g, 0.0, R, (long)nr, (long)m, up);
    else if (!strcmp(kind, "grid") && lx > 0 && ly > 0 && nx >= 1 && ny >= 1)
        rc = gen_grid(&g, lx, ly, (long)nx, (long)ny, up);
    else fprintf(stderr, "bristle mesh: missing or invalid sizes for '%s'\n", kind);
    if (rc == -2) {
        free(g.V), free(g.T);
        return usage(stderr);
    }
    if (rc != 0) fprintf(stderr, "bristle mesh: out of memory for %ld vertices\n", g.nv);
    else if ((rc = write_mesh(&g, out)) != 0) fprintf(stderr, "bristle mesh: cannot write %s\n", out);
    else printf("%s: %ld vertices, %ld triangles\n", out, g.nv, g.nt);
    free(g.V), free(g.T);
    return rc == 0 ? 0 : 1;
}
