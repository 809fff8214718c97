/* parse.h: strict numbers from text (command-line arguments, scenario and study values):
 * the whole string, finite, within a range; whole numbers within their type. */
#ifndef BR_PARSE_H
#define BR_PARSE_H

#include <stddef.h>

/* s -> *v, s a finite number (strtod syntax, surrounding blanks allowed) within [lo, hi]; 0, or -1 */
int br_parse_double(const char *s, double lo, double hi, double *v);

/* s -> *v, s a whole number within [lo, hi] (decimal digits, or a number such as 1e6 that is
 * whole); 0, or -1 */
int br_parse_long(const char *s, long lo, long hi, long *v);

/* command and option names (for the message), s, range -> *v; or a message on stderr
 * "bristle CMD: OPT needs a number in [lo, hi], got 's'" and -1 (the caller exits with 2) */
int br_arg_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *v);

/* as br_arg_double, for whole numbers */
int br_arg_long(const char *cmd, const char *opt, const char *s, long lo, long hi, long *v);

/* s -> 1 if s is a portable file name of 1 to max - 1 characters (letters, digits, '_', '-', '.';
 * not "." or ".."): the run and study names that become folders under runs/ */
int br_portable_name(const char *s, size_t max);

#endif
