/* A controller in the loop of any Tumble run from C, as an external dynamics code or a flight
 * software test bench drives it: start a scenario, step it, read its state by name, set an
 * input by name between steps, then write its outputs.
 *
 *   cc run_loop.c -I ../../include -L <target>/debug -ltumble_capi -o run_loop
 *   ./run_loop scenarios/contact/drawer.toml BODY OUT_DIR [KEY=VALUE ...]
 *
 * Pushes the free body BODY along x with a damped force F = 20 N - 50 N·s/m · v_x, and
 * prints, every 250 steps, the time and the body's position. Ends with the run's status. */
#include <stdio.h>
#include <string.h>
#include "tumble.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s SCENARIO BODY OUT_DIR [KEY=VALUE ...]\n", argv[0]);
        return 2;
    }
    TumbleRun *run = tumble_run_start(argv[1], (const char *const *)(argv + 4), argc - 4);
    if (!run) {
        fprintf(stderr, "tumble: %s\n", tumble_last_error());
        return 1;
    }
    char position[256], velocity[256], wrench[256];
    snprintf(position, sizeof position, "%s.position", argv[2]);
    snprintf(velocity, sizeof velocity, "%s.velocity", argv[2]);
    snprintf(wrench, sizeof wrench, "%s.wrench", argv[2]);
    int status = 0;
    for (long k = 0;; k++) {
        double p[3], v[3];
        if (tumble_run_state(run, position, p, 3) != 3 || tumble_run_state(run, velocity, v, 3) != 3) {
            fprintf(stderr, "tumble: %s\n", tumble_last_error());
            status = 1;
            break;
        }
        if (k % 250 == 0) printf("%.17g %.17g %.17g %.17g\n", tumble_run_time(run), p[0], p[1], p[2]);
        double f[6] = {20.0 - 50.0 * v[0], 0.0, 0.0, 0.0, 0.0, 0.0};
        if (tumble_run_set_input(run, wrench, f, 6) != TUMBLE_OK) {
            fprintf(stderr, "tumble: %s\n", tumble_last_error());
            status = 1;
            break;
        }
        int step = tumble_run_step(run);
        if (step == TUMBLE_ENDED) break;
        if (step != TUMBLE_OK) {
            fprintf(stderr, "tumble: %s\n", tumble_last_error());
            status = 1;
            break;
        }
    }
    const char *summary = tumble_run_report(run, argv[3]);
    if (!summary) {
        fprintf(stderr, "tumble: %s\n", tumble_last_error());
        status = 1;
    } else {
        fprintf(stderr, "%s\n", summary);
    }
    tumble_run_free(run);
    return status;
}
