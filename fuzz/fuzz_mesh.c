/* fuzz_mesh.c: libFuzzer target for the mesh reader (br_mesh_load, assimp underneath).
 * Input: the first byte picks the file type (.stl, .ply or .obj, by value mod 3), the rest is the
 * file, written to a temporary file, loaded, and when it loads sampled (br_mesh_sample_vertices) and
 * measured (br_mesh_area). Run with scripts/fuzz.sh mesh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char *const ext[3] = {".stl", ".ply", ".obj"};
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_mesh_XXXXXX%s", tmp && *tmp ? tmp : "/tmp", ext[data[0] % 3]);
    const int fd = mkstemps(path, 4);
    if (fd < 0) abort(); /* the harness itself failed: not a finding */
    for (size_t off = 1; off < size;) {
        const ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
    close(fd);
    static const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0, 0};
    char err[2048];
    br_mesh *m = br_mesh_load(path, 1.0, R, t, err, sizeof err);
    if (m) {
        double *r = NULL, *area = NULL;
        br_mesh_sample_vertices(m, &r, &area);
        volatile double a = br_mesh_area(m);
        (void)a;
        free(r), free(area);
        br_mesh_free(m);
    }
    unlink(path);
    return 0;
}
