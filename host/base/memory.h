/* memory.h: the size guard. Before a scenario's points, a mesh's samples or a structure's matrices
 * are allocated, their memory is estimated and compared with what the machine can give: the
 * memory available (MemAvailable of /proc/meminfo), the address-space limit (ulimit -v) less what
 * the process maps already, and --max-memory when given; the smallest counts. Too big: a clear
 * message and exit 2 instead of a crash when the allocation fails (or, worse, the OOM killer). */
#ifndef BR_MEMORY_H
#define BR_MEMORY_H

#include <stddef.h>

/* bytes a contact point costs in all (model arrays, field geometry, parameters and state,
 * per-point outputs), a bound for every law: the guard's estimate per point */
#define BR_BYTES_PER_POINT 512.0

/* bytes (> 0) -> the limit --max-memory sets (0: none) */
void br_mem_set_limit(double bytes);

/* -> the bytes this process can still allocate (the smallest of the limits above) */
double br_mem_available(void);

/* bytes wanted, what (for the message) -> 0 if they fit, or -1 with "WHAT needs about X GB, more
 * than the Y GB this process can have (...)" in msg */
int br_mem_check(double bytes, const char *what, char *msg, size_t len);

/* "4G", "512M", "100k" or a plain byte count -> bytes; 0, or -1 (not a size) */
int br_parse_size(const char *s, double *bytes);

/* command name, the --max-memory argument -> the limit set (br_mem_set_limit); 0, or -1 with
 * "bristle CMD: --max-memory takes a size ..." on stderr (the caller exits with 2) */
int br_arg_max_memory(const char *cmd, const char *s);

#endif
