/* failalloc.c: allocation fault injection for bristle_failalloc (the bristle command linked with
 * -Wl,--wrap=main,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup; CMakeLists.txt). From
 * the start of main, every call of the statically linked code (the executable's objects,
 * bristle_core and, in a CUDA build, the static CUDA runtime; not the shared libraries such as
 * libyaml, cairo, assimp, OpenBLAS, nor libc's internal allocations) to those functions is counted,
 * from 1, over all threads. The calls before main (the CUDA runtime registering its kernels) are
 * neither counted nor failed. Environment:
 *   BR_FAIL_ALLOC=N          call N returns NULL with errno ENOMEM (unset or 0: none fails)
 *   BR_FAIL_ALLOC_COUNT=FILE the number of calls is written to FILE at exit
 *   BR_FAIL_ALLOC_TRACE=1    the failed call prints its backtrace on stderr (addresses for addr2line)
 * test_failalloc fails each call in turn and checks that the command ends with "out of memory" and
 * exit status 1 or 2 (docs/robustness.md). */
#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int __real_main(int argc, char **argv);
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
int __wrap_main(int argc, char **argv);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);

static atomic_int g_armed;    /* main has started: calls are counted */
static atomic_long g_calls;   /* calls so far */
static long g_fail;           /* the call that fails; 0: none */
static const char *g_count;   /* BR_FAIL_ALLOC_COUNT */
static int g_trace;

/* at exit -> the number of calls written to BR_FAIL_ALLOC_COUNT */
static void write_count(void)
{
    FILE *fp = fopen(g_count, "w");
    if (!fp) return;
    fprintf(fp, "%ld\n", (long)atomic_load(&g_calls));
    fclose(fp);
}

/* the environment read, counting armed, then bristle's main */
int __wrap_main(int argc, char **argv)
{
    const char *s = getenv("BR_FAIL_ALLOC");
    g_fail = s ? strtol(s, NULL, 10) : 0;
    g_trace = getenv("BR_FAIL_ALLOC_TRACE") != NULL;
    g_count = getenv("BR_FAIL_ALLOC_COUNT");
    if (g_count && g_count[0]) atexit(write_count);
    atomic_store(&g_armed, 1);
    return __real_main(argc, argv);
}

/* function name, bytes -> 1 when this call is the one to fail (errno set to ENOMEM) */
static int fail_now(const char *fn, size_t size)
{
    if (!atomic_load_explicit(&g_armed, memory_order_relaxed)) return 0;
    const long k = atomic_fetch_add(&g_calls, 1) + 1;
    if (g_fail <= 0 || k != g_fail) return 0;
    if (g_trace) {
        char line[128];
        const int n = snprintf(line, sizeof line, "failalloc: call %ld, %s(%zu) returns NULL\n", k, fn, size);
        if (write(2, line, (size_t)n) < 0) return 1;
        void *bt[32];
        backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
    }
    errno = ENOMEM;
    return 1;
}

void *__wrap_malloc(size_t size) { return fail_now("malloc", size) ? NULL : __real_malloc(size); }

void *__wrap_calloc(size_t n, size_t size) { return fail_now("calloc", n * size) ? NULL : __real_calloc(n, size); }

void *__wrap_realloc(void *p, size_t size) { return fail_now("realloc", size) ? NULL : __real_realloc(p, size); }

char *__wrap_strdup(const char *s) { return fail_now("strdup", strlen(s) + 1) ? NULL : __real_strdup(s); }
