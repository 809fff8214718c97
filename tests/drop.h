/* drop.h: the bounce of issue 50, a scenario text for the tests: a 0.1 kg ball 0.1 mm above the
 * ground falling at 1 m/s onto one Hunt-Crossley point (K = 1e9, pK = pD = n, D = a K) with dahl3d
 * friction (no sliding: it stays at rest). */
#ifndef BR_TEST_DROP_H
#define BR_TEST_DROP_H

#include <stdio.h>

/* buffer, end time, dt (also the output interval), extra keys of `time:` (", adaptive: false" or ""),
 * n, a -> the scenario's text in buf */
static inline void drop_text(char *buf, size_t len, double end, double dt, const char *time_extra, double n, double a)
{
    snprintf(buf, len,
             "name: drop\n"
             "time: {end: %g, dt: %g%s}\n"
             "output: {interval: %g}\n"
             "bodies:\n"
             "  - {name: ball, mass: 0.1, box: [0.01, 0.01, 0.01], position: [0, 0, 1.0e-4],\n"
             "     velocity: [0, 0, -1.0], lock: [x, y, rx, ry, rz]}\n"
             "contacts:\n"
             "  - name: c\n"
             "    body: ball\n"
             "    surface: {type: plane, frame: ground, point: [0, 0, 0], normal: [0, 0, 1]}\n"
             "    points: {list: [[0, 0, 0]]}\n"
             "    area: 1.0\n"
             "    normal: {law: hunt_crossley, K: 1.0e9, pK: %g, D: %.17g, pD: %g}\n"
             "    friction: {law: dahl3d, mu_k: 0.3, sigma0: 1.0e5}\n",
             end, dt, time_extra, dt, n, a * 1e9, n);
}

#endif
