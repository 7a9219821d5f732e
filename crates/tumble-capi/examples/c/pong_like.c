/* Drives Tumble's contact engine from C, as an external multibody code would: a tripod frame
 * comes down on the ground, tilted and sliding; at each step the code sets the tripod's pose
 * and twist, evaluates, reads the contact wrench and commits the step.
 *
 *   cc pong_like.c -I ../../include -L <target>/debug -ltumble_capi -o pong_like
 *   ./pong_like tripod.toml ground.toml
 *
 * Prints, per step, the force and moment on the tripod (world frame, about its origin). */
#include <stdio.h>
#include "tumble.h"

static int check(int status) {
    if (status < 0) fprintf(stderr, "tumble: %s\n", tumble_last_error());
    return status;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s TRIPOD.toml GROUND.toml\n", argv[0]);
        return 2;
    }
    TumbleModel *tripod = tumble_model_load(argv[1]);
    TumbleModel *ground = tumble_model_load(argv[2]);
    if (!tripod || !ground) {
        fprintf(stderr, "tumble: %s\n", tumble_last_error());
        return 1;
    }
    TumbleEngine *engine = tumble_engine_new();
    int a = check(tumble_engine_add_object(engine, tripod, "tripod"));
    int b = check(tumble_engine_add_object(engine, ground, "ground"));
    if (a < 0 || b < 0 || check(tumble_engine_pair(engine, a, b)) < 0) return 1;
    tumble_model_free(tripod); /* the engine keeps its own reference */
    tumble_model_free(ground);

    const double q[4] = {0.9999500004166653, 0.008944122839546013, 0.0044720614197730066, 0.0};
    const double w[3] = {0.0, 0.0, 0.2};
    const double v[3] = {0.05, 0.0, -1.2};
    const double dt = 1e-3;
    for (int k = 0; k < 20; k++) {
        const double p[3] = {0.05 * k * dt, 0.0, 0.011 - 1.2 * k * dt};
        double f[3], m[3];
        if (check(tumble_engine_set_body(engine, a, 0, p, q, v, w)) < 0) return 1;
        if (check(tumble_engine_evaluate(engine)) < 0) return 1;
        if (check(tumble_engine_wrench(engine, a, 0, 0, f, m)) < 0) return 1;
        printf("%d %d %.17g %.17g %.17g %.17g %.17g %.17g\n", k, tumble_engine_contact_count(engine), f[0], f[1],
               f[2], m[0], m[1], m[2]);
        if (check(tumble_engine_commit(engine, dt)) < 0) return 1;
    }
    tumble_engine_free(engine);
    return 0;
}
