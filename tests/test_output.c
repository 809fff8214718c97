/* test_output.c: the CSV number formatting of output.c against strtod and printf. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/output.h"

/* Random values over 600 decades and both signs, plus edge cases: the text parses back
 * within 1e-11 relative (12 significant digits) and matches %.12g in at least 99 % of cases
 * (the scaled rounding may differ from exact rounding in the last digit near a tie). */
Test(output, format_g12_round_trips_to_12_digits)
{
    srand48(7);
    char buf[32], ref[32];
    double worst = 0;
    long same = 0, n = 200000;
    for (long k = 0; k < n; k++) {
        const double v = (drand48() < 0.5 ? -1 : 1) * pow(10.0, 600 * drand48() - 300) * (1 + drand48());
        const int len = br_format_g12(v, buf);
        cr_assert_eq(len, (int)strlen(buf));
        snprintf(ref, sizeof ref, "%.12g", v);
        same += !strcmp(buf, ref);
        worst = fmax(worst, fabs(strtod(buf, NULL) - v) / fabs(v));
    }
    static const double edge[] = {0.0, 1.0, -1.0, 0.1, 1e-5, 9.99999999999951e-6, 123456789012.0, 1e12, 0.75,
                                  999999999999.5, 1e-300, 1e300, 4e-5};
    for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++) {
        br_format_g12(edge[k], buf);
        const double back = strtod(buf, NULL);
        cr_expect(edge[k] == 0 ? back == 0 : fabs(back - edge[k]) <= 1e-11 * fabs(edge[k]), "%.17g -> %s",
                  edge[k], buf);
    }
    br_format_g12(NAN, buf);
    cr_expect(!strcmp(buf, "nan") || !strcmp(buf, "-nan"), "%s", buf);
    printf("format_g12: worst relative error %.2g over %ld values; identical to %%.12g in %.4f %%\n", worst, n,
           100.0 * same / n);
    cr_expect(worst < 1e-11);
    cr_expect(same > 0.99 * n);
}
