/* The online pre-capture check from C, as a chaser's flight software would call it: load a
 * capture study's design once, then read captures from standard input, one per line
 * (the chaser's velocity coordinates, the target's [v_G; w], the impulse measured at the
 * grasp), and print each verdict.
 *
 *   cc capture_check.c -I ../../include -L <target>/debug -ltumble_capi -o capture_check
 *   tumble capture-map scenarios/capture_map/tumbling_500kg.toml   # writes out/.../design.json
 *   ./capture_check out/capture_tumbling_500kg/design.json < captures.txt
 *
 * Prints, per capture: safe (1 or 0), V0, rho0 and the margin V0/rho0. */
#include <stdio.h>
#include <stdlib.h>
#include "tumble.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DESIGN.json < captures\n", argv[0]);
        return 2;
    }
    TumbleCaptureCheck *check = tumble_capture_check_load(argv[1]);
    if (!check) {
        fprintf(stderr, "tumble: %s\n", tumble_last_error());
        return 1;
    }
    int n = tumble_capture_check_chaser_velocities(check);
    double *chaser = malloc(sizeof(double) * (size_t)n);
    double target[6], impulse[6];
    int status = 0;
    for (;;) {
        int got = 0;
        for (int i = 0; i < n; i++) got += scanf("%lf", &chaser[i]);
        for (int i = 0; i < 6; i++) got += scanf("%lf", &target[i]);
        for (int i = 0; i < 6; i++) got += scanf("%lf", &impulse[i]);
        if (got != n + 12) break;
        TumbleVerdict v;
        if (tumble_capture_check_verdict(check, chaser, n, target, impulse, &v) != TUMBLE_OK) {
            fprintf(stderr, "tumble: %s\n", tumble_last_error());
            status = 1;
            break;
        }
        printf("%d %.17g %.17g %.17g\n", v.safe, v.v0, v.rho0, v.margin);
    }
    free(chaser);
    tumble_capture_check_free(check);
    return status;
}
