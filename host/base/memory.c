/* memory.c: the size guard (memory.h). */
#include "base/memory.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/parse.h"

static double g_limit; /* --max-memory, 0 when not given */

void br_mem_set_limit(double bytes) { g_limit = bytes; }

/* /proc/meminfo's MemAvailable in bytes, or -1 */
static double meminfo_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    if (!fp) return -1;
    char line[256];
    double kb = -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(fp);
    return kb >= 0 ? kb * 1024.0 : -1;
}

/* bytes this process maps now (/proc/self/statm), or 0 */
static double mapped_now(void)
{
    FILE *fp = fopen("/proc/self/statm", "r");
    if (!fp) return 0;
    double pages = 0;
    if (fscanf(fp, "%lf", &pages) != 1) pages = 0;
    fclose(fp);
    return pages * (double)sysconf(_SC_PAGESIZE);
}

double br_mem_available(void)
{
    double avail = meminfo_available();
    if (avail < 0) avail = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const double room = (double)rl.rlim_cur - mapped_now();
        if (room < avail) avail = room > 0 ? room : 0;
    }
    if (g_limit > 0 && g_limit < avail) avail = g_limit;
    return avail;
}

int br_mem_check(double bytes, const char *what, char *msg, size_t len)
{
    const double avail = br_mem_available();
    if (bytes <= avail) return 0;
    snprintf(msg, len, "%s needs about %.3g GB, more than the %.3g GB this process can have (available memory, "
                       "ulimit -v%s)",
             what, bytes / 1e9, avail / 1e9, g_limit > 0 ? ", --max-memory" : "");
    return -1;
}

int br_parse_size(const char *s, double *bytes)
{
    char num[64];
    const size_t n = strlen(s);
    if (n == 0 || n >= sizeof num) return -1;
    memcpy(num, s, n + 1);
    double mul = 1;
    switch (num[n - 1]) {
    case 'k': case 'K': mul = 1e3; break;
    case 'M': mul = 1e6; break;
    case 'G': mul = 1e9; break;
    case 'T': mul = 1e12; break;
    default: break;
    }
    if (mul > 1) num[n - 1] = 0;
    double v;
    if (br_parse_double(num, 1, 1e18, &v)) return -1;
    *bytes = v * mul;
    return 0;
}

int br_arg_max_memory(const char *cmd, const char *s)
{
    double lim;
    if (br_parse_size(s, &lim)) {
        fprintf(stderr, "bristle %s: --max-memory takes a size such as 4G, 512M or 1e9 (got '%s')\n", cmd, s);
        return -1;
    }
    br_mem_set_limit(lim);
    return 0;
}
