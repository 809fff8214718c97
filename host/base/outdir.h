/* outdir.h: the wall clock and output folders (in: paths; out: folders made, staged, published or
 * removed, and seconds of a monotonic clock). Base layer: used by runs, studies, benchmarks. */
#ifndef BR_OUTDIR_H
#define BR_OUTDIR_H

#include <stddef.h>

/* -> seconds of a monotonic clock (for wall times) */
double br_wall_seconds(void);

/* path -> it and every missing directory on it created; 0 or -1 (errno set) */
int br_mkdir_p(const char *path);

/* path -> the file or folder and everything under it removed (symbolic links not followed); 0 or -1 */
int br_rm_tree(const char *path);

/* Output folders are made whole or not at all. A run or study writes into the stage DIR.part; when
 * it ends well, br_stage_publish puts the stage in DIR's place (an earlier run in DIR is replaced as a
 * whole, never mixed with the new files); when it fails or is killed, DIR.part stays, marked
 * partial by its name, and DIR keeps the earlier complete output.
 * dir, resume -> stage = dir.part, made fresh and marked (.bristle) unless resuming; 0, or -1 with
 * err when dir or the stage holds files that are not Bristle's (a user's folder is never replaced) */
int br_stage_begin(const char *dir, int resume, char *stage, size_t len, char *err, size_t errlen);

/* stage, dir -> the stage renamed to dir, an earlier dir removed; 0, or -1 with err */
int br_stage_publish(const char *stage, const char *dir, char *err, size_t errlen);

#endif
