// Gravity of a constant-density polyhedron (Werner & Scheeres 1996), as tumble-dynamics'
// `Polyhedron::sample`: the same sums in the same order, with `ln1p64` and `atan2_64` of
// math.wgsl (prepend it). Buffer `poly` (f64): nv, nf, ne, Gρ, then the vertices (3 each), the
// faces' vertex indices (3 each), the face dyads (9 each, row-major), the edges' vertex indices
// (2 each), the edge dyads (9 each).

struct Gravity { u: f64, a: vec3<f64>, grad: mat3x3<f64> }

fn poly_vertex(k: u32) -> vec3<f64> {
    let at = 4u + 3u * k;
    return vec3<f64>(poly[at], poly[at + 1u], poly[at + 2u]);
}

fn poly_dyad(at: u32) -> mat3x3<f64> {
    return transpose(mat3x3<f64>(
        vec3<f64>(poly[at], poly[at + 1u], poly[at + 2u]),
        vec3<f64>(poly[at + 3u], poly[at + 4u], poly[at + 5u]),
        vec3<f64>(poly[at + 6u], poly[at + 7u], poly[at + 8u])));
}

// The number of terms of the sums: the edges', then the faces'.
fn polyhedron_terms() -> u32 { return u32(poly[1]) + u32(poly[2]); }

// Adds terms first..end of the sums at p to `acc` (before the factor Gρ): one term per loop
// iteration, so that a sweep can be split between dispatches (lavapipe's loop limit) and
// still add the same terms in the same order.
fn polyhedron_partial(p: vec3<f64>, first: u32, end: u32, acc: Gravity) -> Gravity {
    let nv = u32(poly[0]); let nf = u32(poly[1]); let ne = u32(poly[2]);
    let faces = 4u + 3u * nv;
    let face_dyads = faces + 3u * nf;
    let edges = face_dyads + 9u * nf;
    let edge_dyads = edges + 2u * ne;
    var u = acc.u;
    var a = acc.a;
    var grad = acc.grad;
    for (var t = first; t < end; t++) {
        if (t < ne) {
            let e = t;
            let r1 = poly_vertex(u32(poly[edges + 2u * e])) - p;
            let r2 = poly_vertex(u32(poly[edges + 2u * e + 1u])) - p;
            let n1 = length(r1); let n2 = length(r2);
            let len = length(r2 - r1);
            let s = n1 + n2;
            let den = s - len;
            // On the edge the term's limit is zero.
            if (!(den <= 1e-14lf * s)) {
                let l = ln1p64(2.0lf * len / den);
                let ed = poly_dyad(edge_dyads + 9u * e);
                let er = ed * r1;
                u += dot(r1, er) * l;
                a -= er * l;
                grad += ed * l;
            }
        } else {
            let f = t - ne;
            let r1 = poly_vertex(u32(poly[faces + 3u * f])) - p;
            let r2 = poly_vertex(u32(poly[faces + 3u * f + 1u])) - p;
            let r3 = poly_vertex(u32(poly[faces + 3u * f + 2u])) - p;
            let n1 = length(r1); let n2 = length(r2); let n3 = length(r3);
            let num = dot(r1, cross(r2, r3));
            let den = n1 * n2 * n3 + n1 * dot(r2, r3) + n2 * dot(r3, r1) + n3 * dot(r1, r2);
            let w = 2.0lf * atan2_64(num, den);
            let fd = poly_dyad(face_dyads + 9u * f);
            let fr = fd * r1;
            u -= dot(r1, fr) * w;
            a += fr * w;
            grad -= fd * w;
        }
    }
    return Gravity(u, a, grad);
}

// The sums' result: potential (J/kg, negative), acceleration (m/s²) and its gradient (1/s²).
fn polyhedron_scaled(sums: Gravity) -> Gravity {
    let g_rho = poly[3];
    return Gravity(-0.5lf * g_rho * sums.u, g_rho * sums.a, g_rho * sums.grad);
}

// Potential, acceleration and gradient at p.
fn polyhedron_sample(p: vec3<f64>) -> Gravity {
    let zero = Gravity(0.0lf, vec3<f64>(0.0lf), mat3x3<f64>(vec3<f64>(0.0lf), vec3<f64>(0.0lf), vec3<f64>(0.0lf)));
    return polyhedron_scaled(polyhedron_partial(p, 0u, polyhedron_terms(), zero));
}
