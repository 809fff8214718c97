/* textfile.h: a whole file read into memory as text (base layer: no model, no YAML). In: a path;
 * out: its bytes NUL-terminated, or a "file:1: message" error. */
#ifndef BR_TEXTFILE_H
#define BR_TEXTFILE_H

#include <stddef.h>

/* path -> the file's text (allocated, NUL-terminated) and its length, or NULL with
 * "file:1: cannot open: reason" (or out of memory) in err */
char *br_read_text(const char *path, size_t *len, char *err, size_t errlen);

#endif
