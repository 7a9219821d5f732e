/* Contact laws, friction and the snare wire from C, for a dynamics code that computes its own
 * penetrations: build each law once, then ask forces at each step.
 *
 *   cc laws.c -I ../../include -L <target>/debug -ltumble_capi -o laws && ./laws
 *
 * Prints, per law and input: law, delta (m), rate (m/s), force (N), energy (J); then the
 * wire's force and tension, and one friction force. */
#include <stdio.h>
#include "tumble.h"

int main(void) {
    const double table_delta[3] = {0.0, 0.01, 0.02}, table_force[3] = {0.0, 100.0, 400.0};
    TumbleContactLaw *laws[7] = {
        tumble_law_spring_dashpot(1e4, 50.0), tumble_law_hertz(1e6),
        tumble_law_hunt_crossley(1e6, 1.5, 0.3), tumble_law_flores(1e6, 1.5, 0.8),
        tumble_law_power(2e5, 1.2, 30.0, 0.5, 1.0), tumble_law_snare_wire_table4(90),
        tumble_law_table(table_delta, table_force, 3),
    };
    for (int i = 0; i < 7; i++) {
        if (!laws[i]) {
            fprintf(stderr, "tumble: %s\n", tumble_last_error());
            return 1;
        }
    }
    const double deltas[5] = {-0.001, 0.0, 0.001, 0.015, 0.03}, rates[3] = {-0.1, 0.0, 0.2};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 3; k++) {
                double f, e;
                if (tumble_law_force(laws[i], deltas[j], rates[k], 0.5, &f, &e) != TUMBLE_OK) return 1;
                printf("%d %.17g %.17g %.17g %.17g\n", i, deltas[j], rates[k], f, e);
            }
    for (int i = 0; i < 7; i++) tumble_law_free(laws[i]);

    TumbleLooseWire *wire = tumble_wire_table4(0.09, 50.0);
    double q, yield;
    if (!wire || tumble_wire_limits(wire, &q, &yield) != TUMBLE_OK) return 1;
    const double wire_deltas[4] = {0.005, 0.02, q, q + 0.0003};
    for (int j = 0; j < 4; j++) {
        double f, t;
        if (tumble_wire_force(wire, wire_deltas[j], 0.05, &f, &t) != TUMBLE_OK) return 1;
        printf("7 %.17g %.17g %.17g %.17g\n", wire_deltas[j], 0.05, f, t);
    }
    printf("8 %.17g %.17g 0 0\n", q, yield);
    tumble_wire_free(wire);

    const double slip[3] = {0.003, -0.004, 0.0};
    double ft[3];
    if (tumble_friction(0.3, 100.0, slip, 0.01, ft) != TUMBLE_OK) return 1;
    printf("9 %.17g %.17g %.17g 0\n", ft[0], ft[1], ft[2]);
    return 0;
}
