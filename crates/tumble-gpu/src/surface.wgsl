// The target's surface for the lander kernels (after lander.wgsl, whose model layout it reads):
// a plane or a sampled grid, a mesh grid's exact near-surface refinement, fBm terrain on top.

struct Field { d: f64, g: vec3<f64> }

fn grid_at(i: u32, j: u32, k: u32) -> f64 {
    let nx = u32(mp(M_SURF + 5u));
    let ny = u32(mp(M_SURF + 6u));
    return grid[(k * ny + j) * nx + i];
}

// Gradient noise and fBm, as tumble-geometry's `noise` (SplitMix64 lattice hash on u64, the 12
// cube-edge gradients, quintic fade, analytic gradient).
const GRADIENTS = array<vec3<f64>, 12>(
    vec3<f64>(1.0lf, 1.0lf, 0.0lf), vec3<f64>(-1.0lf, 1.0lf, 0.0lf), vec3<f64>(1.0lf, -1.0lf, 0.0lf),
    vec3<f64>(-1.0lf, -1.0lf, 0.0lf), vec3<f64>(1.0lf, 0.0lf, 1.0lf), vec3<f64>(-1.0lf, 0.0lf, 1.0lf),
    vec3<f64>(1.0lf, 0.0lf, -1.0lf), vec3<f64>(-1.0lf, 0.0lf, -1.0lf), vec3<f64>(0.0lf, 1.0lf, 1.0lf),
    vec3<f64>(0.0lf, -1.0lf, 1.0lf), vec3<f64>(0.0lf, 1.0lf, -1.0lf), vec3<f64>(0.0lf, -1.0lf, -1.0lf));

fn splitmix(h0: u64) -> u64 {
    var h = h0;
    h = (h ^ (h >> 30u)) * 0xBF58476D1CE4E5B9lu;
    h = (h ^ (h >> 27u)) * 0x94D049BB133111EBlu;
    return h ^ (h >> 31u);
}

fn floor_i64(x: f64) -> i64 {
    let i = i64(x);
    if (f64(i) > x) { return i - 1li; }
    return i;
}

// (value, derivative) of the quintic fade.
fn fade(t: f64) -> vec2<f64> {
    return vec2<f64>(t * t * t * (t * (t * 6.0lf - 15.0lf) + 10.0lf), 30.0lf * t * t * (t * (t - 2.0lf) + 1.0lf));
}

struct Noise { v: f64, g: vec3<f64> }

fn gradient_noise(p: vec3<f64>, seed: u64) -> Noise {
    let i0 = floor_i64(p.x); let j0 = floor_i64(p.y); let k0 = floor_i64(p.z);
    let t = p - vec3<f64>(f64(i0), f64(j0), f64(k0));
    let fx = fade(t.x); let fy = fade(t.y); let fz = fade(t.z);
    let hx = array<u64, 2>(u64(i0) * 0x9E3779B97F4A7C15lu, u64(i0 + 1li) * 0x9E3779B97F4A7C15lu);
    let hy = array<u64, 2>(u64(j0) * 0xC2B2AE3D27D4EB4Flu, u64(j0 + 1li) * 0xC2B2AE3D27D4EB4Flu);
    let hz = array<u64, 2>(u64(k0) * 0x165667B19E3779F9lu, u64(k0 + 1li) * 0x165667B19E3779F9lu);
    var v = 0.0lf;
    var g = vec3<f64>(0.0lf);
    for (var c = 0u; c < 8u; c++) {
        let a = c & 1u; let b = (c >> 1u) & 1u; let e = (c >> 2u) & 1u;
        let h = splitmix(seed ^ hx[a] ^ hy[b] ^ hz[e]);
        let gr = GRADIENTS[u32(((h >> 32u) * 12lu) >> 32u)];
        let d = t - vec3<f64>(f64(a), f64(b), f64(e));
        let dt = dot(gr, d);
        var wx = 1.0lf - fx.x; var dwx = -fx.y;
        if (a == 1u) { wx = fx.x; dwx = fx.y; }
        var wy = 1.0lf - fy.x; var dwy = -fy.y;
        if (b == 1u) { wy = fy.x; dwy = fy.y; }
        var wz = 1.0lf - fz.x; var dwz = -fz.y;
        if (e == 1u) { wz = fz.x; dwz = fz.y; }
        let w = wx * wy * wz;
        v += w * dt;
        g += w * gr + dt * vec3<f64>(dwx * wy * wz, wx * dwy * wz, wx * wy * dwz);
    }
    return Noise(v, g);
}

// fBm with the parameters at `at`: seed (low and high 32 bits), octaves, lacunarity, gain,
// amplitude, frequency.
fn fbm(p: vec3<f64>, at: u32) -> Noise {
    let seed = u64(u32(mp(at))) | (u64(u32(mp(at + 1u))) << 32u);
    let octaves = u32(mp(at + 2u));
    let lacunarity = mp(at + 3u);
    let gain = mp(at + 4u);
    var amp = mp(at + 5u);
    var freq = mp(at + 6u);
    var v = 0.0lf;
    var g = vec3<f64>(0.0lf);
    for (var o = 0u; o < octaves; o++) {
        let n = gradient_noise(p * freq, seed + u64(o) * 0x632BE59BD9B4E019lu);
        v += amp * n.v;
        g += amp * freq * n.g;
        amp *= gain;
        freq *= lacunarity;
    }
    return Noise(v, g);
}

// The ground's signed distance and gradient at p (T frame): the base surface, then the terrain's
// heights (tumble-geometry's `Terrain`: sandy and rocky fBm blended by a smoothstep of the
// region fBm, measured from the terrain's origin); `field` adds the boulders.
fn ground_field(p0: vec3<f64>) -> Field {
    let base = base_field(p0);
    if (mp(M_TERRAIN) == 0.0lf) { return base; }
    let p = p0 - v3(M_TERRAIN_ORIGIN);
    // Rocky weight w and its gradient: a latitude–longitude grid's, or the smoothstep of the
    // region field.
    var w = 0.0lf;
    var dw = vec3<f64>(0.0lf);
    let at = mp(M_REGION_GRID);
    if (at >= 0.0lf) {
        let rw = region_grid(p0, u32(at));
        w = rw.v;
        dw = rw.g;
    } else {
        let r = fbm(p, M_TERRAIN + 15u);
        let width = mp(M_TERRAIN + 23u);
        let x = (r.v - mp(M_TERRAIN + 22u)) / width + 0.5lf;
        if (x >= 1.0lf) {
            w = 1.0lf;
        } else if (x > 0.0lf) {
            w = x * x * (3.0lf - 2.0lf * x);
            dw = 6.0lf * x * (1.0lf - x) / width * r.g;
        }
    }
    // Inside a region only its own heights count.
    if (w == 0.0lf) {
        let s = fbm(p, M_TERRAIN + 1u);
        return Field(base.d - s.v, base.g - s.g);
    }
    if (w == 1.0lf) {
        let k = fbm(p, M_TERRAIN + 8u);
        return Field(base.d - k.v, base.g - k.g);
    }
    let s = fbm(p, M_TERRAIN + 1u);
    let k = fbm(p, M_TERRAIN + 8u);
    let h = (1.0lf - w) * s.v + w * k.v;
    return Field(base.d - h, base.g - (1.0lf - w) * s.g - w * k.g - (k.v - s.v) * dw);
}

// The surface without terrain.
fn base_field(p: vec3<f64>) -> Field {
    if (mp(M_SURF) == 0.0lf) {
        let n = v3(M_SURF + 4u);
        return Field(dot(p - v3(M_SURF + 1u), n), n);
    }
    // Trilinear on the grid, clamped to its box; outside, the distance to the box is added and
    // the clamped components' gradient replaced (as tumble-geometry's GridSdf).
    let origin = v3(M_SURF + 1u);
    let h = mp(M_SURF + 4u);
    let dims = vec3<f64>(mp(M_SURF + 5u), mp(M_SURF + 6u), mp(M_SURF + 7u));
    let hi = origin + (dims - vec3<f64>(1.0lf)) * h;
    let q = min(max(p, origin), hi);
    let l = (q - origin) / h;
    var idx = vec3<u32>(0u);
    var t = vec3<f64>(0.0lf);
    for (var a = 0; a < 3; a++) {
        let i = min(u32(max(floor(l[a]), 0.0lf)), u32(dims[a]) - 2u);
        idx[a] = i;
        t[a] = l[a] - f64(i);
    }
    let i = idx.x; let j = idx.y; let k = idx.z;
    let c000 = grid_at(i, j, k); let c100 = grid_at(i + 1u, j, k);
    let c010 = grid_at(i, j + 1u, k); let c110 = grid_at(i + 1u, j + 1u, k);
    let c001 = grid_at(i, j, k + 1u); let c101 = grid_at(i + 1u, j, k + 1u);
    let c011 = grid_at(i, j + 1u, k + 1u); let c111 = grid_at(i + 1u, j + 1u, k + 1u);
    let c00 = c000 + (c100 - c000) * t.x; let c10 = c010 + (c110 - c010) * t.x;
    let c01 = c001 + (c101 - c001) * t.x; let c11 = c011 + (c111 - c011) * t.x;
    let c0 = c00 + (c10 - c00) * t.y; let c1 = c01 + (c11 - c01) * t.y;
    let v = c0 + (c1 - c0) * t.z;
    let e0 = (c100 - c000) + ((c110 - c010) - (c100 - c000)) * t.y;
    let e1 = (c101 - c001) + ((c111 - c011) - (c101 - c001)) * t.y;
    let dx = e0 + (e1 - e0) * t.z;
    let dy = (c10 - c00) + ((c11 - c01) - (c10 - c00)) * t.z;
    let dz = c1 - c0;
    var g = vec3<f64>(dx, dy, dz) / h;
    let off = p - q;
    let d = length(off);
    if (d == 0.0lf) {
        if (mp(M_SURF) == 2.0lf && abs(v) < REFINE_BAND * h) { return refined(p, idx); }
        return Field(v, g);
    }
    for (var a = 0; a < 3; a++) {
        if (off[a] != 0.0lf) { g[a] = 0.0lf; }
    }
    return Field(v + d, g + off / d);
}

// A mesh grid's exact answers near the surface (tumble-geometry's `GridSdf::refined` and
// `MeshDistance::query_near`): within REFINE_BAND cells of the surface the signed distance to
// the mesh, its closest point found by the tree search seeded with the faces closest to the
// cell's eight nodes, the sign from the closest feature's pseudonormal. After the N samples
// `grid` holds N closest-face indices, the face count F and node count K, F faces of
// FACE_LEN (corners a, b, c, unit normal, three edge and three corner pseudonormals), K nodes
// of 8 (box lo, hi, first, count) and the F face indices in leaf order.
const REFINE_BAND: f64 = 2.0lf;
const FACE_LEN: u32 = 30u;
// Deepest tree the search's stack holds (the host refuses deeper ones).
const MAX_DEPTH: u32 = 40u;

var<private> best_d2: f64;
var<private> best_face: u32;
var<private> best_c: vec3<f64>;
var<private> best_feat: u32;  // 0 face, 1 + k edge k, 4 + k corner k
var<private> mesh_faces: u32;
var<private> mesh_nodes: u32;
var<private> mesh_order: u32;

fn gv(at: u32) -> vec3<f64> { return vec3<f64>(grid[at], grid[at + 1u], grid[at + 2u]); }

struct Closest { c: vec3<f64>, feat: u32 }

// Closest point on triangle (a, b, c) to p and its feature (tumble-geometry's
// `closest_on_triangle`, Ericson §5.1.5).
fn closest_on_triangle(p: vec3<f64>, a: vec3<f64>, b: vec3<f64>, c: vec3<f64>) -> Closest {
    let ab = b - a; let ac = c - a; let ap = p - a;
    let d1 = dot(ab, ap); let d2 = dot(ac, ap);
    if (d1 <= 0.0lf && d2 <= 0.0lf) { return Closest(a, 4u); }
    let bp = p - b;
    let d3 = dot(ab, bp); let d4 = dot(ac, bp);
    if (d3 >= 0.0lf && d4 <= d3) { return Closest(b, 5u); }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0lf && d1 >= 0.0lf && d3 <= 0.0lf) { return Closest(a + d1 / (d1 - d3) * ab, 1u); }
    let cp = p - c;
    let d5 = dot(ab, cp); let d6 = dot(ac, cp);
    if (d6 >= 0.0lf && d5 <= d6) { return Closest(c, 6u); }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0lf && d2 >= 0.0lf && d6 <= 0.0lf) { return Closest(a + d2 / (d2 - d6) * ac, 3u); }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0lf && (d4 - d3) >= 0.0lf && (d5 - d6) >= 0.0lf) {
        return Closest(b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), 2u);
    }
    let denom = 1.0lf / (va + vb + vc);
    return Closest(a + ab * (vb * denom) + ac * (vc * denom), 0u);
}

fn test_face(f: u32, p: vec3<f64>) {
    let at = mesh_faces + FACE_LEN * f;
    let r = closest_on_triangle(p, gv(at), gv(at + 3u), gv(at + 6u));
    let d = r.c - p;
    let d2 = dot(d, d);
    if (d2 < best_d2) {
        best_d2 = d2; best_face = f; best_c = r.c; best_feat = r.feat;
    }
}

fn box_dist2(p: vec3<f64>, node: u32) -> f64 {
    let at = mesh_nodes + 8u * node;
    let d = max(max(gv(at) - p, p - gv(at + 3u)), vec3<f64>(0.0lf));
    return dot(d, d);
}

fn refined(p: vec3<f64>, cell: vec3<u32>) -> Field {
    let nx = u32(mp(M_SURF + 5u)); let ny = u32(mp(M_SURF + 6u)); let nz = u32(mp(M_SURF + 7u));
    let n = nx * ny * nz;
    let nf = u32(grid[2u * n]);
    mesh_faces = 2u * n + 2u;
    mesh_nodes = mesh_faces + FACE_LEN * nf;
    mesh_order = mesh_nodes + 8u * u32(grid[2u * n + 1u]);
    // One loop, one face test per iteration (see `rk4` in steps.wgsl on why few calls): first
    // the faces closest to the cell's eight nodes, then the tree, nearer child first, a node no
    // nearer than the best pruned, a leaf's faces one by one. The CPU tests the eight faces
    // sorted and once each, here in node order (a face named twice is tested twice, which
    // changes nothing): the order matters only where two faces are exactly as close (on their
    // common edge or corner), whose pseudonormals are the same.
    best_d2 = 1e300lf;
    var stack: array<u32, 41>;
    var top = 1u;
    stack[0] = 0u;
    var seed = 0u;
    var leaf_at = 0u; var leaf_end = 0u;
    loop {
        var f = nf;
        if (seed < 8u) {
            let c = seed;
            f = u32(grid[n + ((cell.z + (c >> 2u)) * ny + cell.y + ((c >> 1u) & 1u)) * nx + cell.x + (c & 1u)]);
            seed += 1u;
        } else if (leaf_at < leaf_end) {
            f = u32(grid[mesh_order + leaf_at]);
            leaf_at += 1u;
        } else if (top > 0u) {
            top -= 1u;
            let node = stack[top];
            if (box_dist2(p, node) < best_d2) {
                let first = u32(grid[mesh_nodes + 8u * node + 6u]);
                let count = u32(grid[mesh_nodes + 8u * node + 7u]);
                if (count > 0u) {
                    leaf_at = first; leaf_end = first + count;
                } else {
                    var near = first; var far = first + 1u;
                    if (box_dist2(p, first) > box_dist2(p, first + 1u)) { near = first + 1u; far = first; }
                    stack[top] = far;
                    stack[top + 1u] = near;
                    top += 2u;
                }
            }
        } else {
            break;
        }
        if (f < nf) { test_face(f, p); }
    }
    let at = mesh_faces + FACE_LEN * best_face;
    var normal = gv(at + 9u);
    if (best_feat >= 4u) {
        normal = gv(at + 21u + 3u * (best_feat - 4u));
    } else if (best_feat >= 1u) {
        normal = gv(at + 12u + 3u * (best_feat - 1u));
    }
    var d = sqrt(best_d2);
    if (dot(p - best_c, normal) < 0.0lf) { d = -d; }
    if (abs(d) > 1e-9lf * mp(M_SURF + 4u)) { return Field(d, (p - best_c) / d); }
    return Field(d, unit_or(normal, vec3<f64>(0.0lf)));
}

// ---- Boulder fields (tumble-geometry's `BoulderField`): φ = smin(φ_ground, φ_1, φ_2, …) over
// the boulders hashed near the point, each class skipped with its lower bound where the ground
// is farther than its layer. At `M_BOULDERS` in `grid`: the class count L, the boulder count B,
// B boulders of BOULDER_LEN (centre, the long, middle and short axes' directions, the semi-axes
// a ≥ b ≥ c, the blend radius), L classes of LEVEL_LEN (cell, height, blend, occupied cells K,
// where their keys (3 each, sorted), their K + 1 starts and their items begin).
const BOULDER_LEN: u32 = 16u;
const LEVEL_LEN: u32 = 7u;
// Enough bisections for every binade of f64 (tumble-geometry's `MAX_BISECTIONS`).
const MAX_BISECTIONS: u32 = 1100u;

fn field(p: vec3<f64>) -> Field {
    let ground = ground_field(p);
    let at = mp(M_BOULDERS);
    if (at < 0.0lf) { return ground; }
    return boulder_field(p, ground, u32(at));
}

// The cell `key` of class `lv` lists boulders from `items` (its index among the keys, or K).
fn cell_index(lv: u32, key: vec3<f64>) -> u32 {
    let count = u32(grid[lv + 3u]);
    let keys = u32(grid[lv + 4u]);
    var lo = 0u; var hi = count;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let k = gv(keys + 3u * mid);
        var less = k.x < key.x;
        if (k.x == key.x) { less = k.y < key.y || (k.y == key.y && k.z < key.z); }
        if (less) { lo = mid + 1u; } else { hi = mid; }
    }
    if (lo < count && all(gv(keys + 3u * lo) == key)) { return lo; }
    return count;
}

fn boulder_field(p: vec3<f64>, ground: Field, at: u32) -> Field {
    let levels = u32(grid[at]);
    let first = at + 2u;
    var lv = first + BOULDER_LEN * u32(grid[at + 1u]);
    var cur = ground;
    var below = 1e300lf;
    for (var l = 0u; l < levels; l++) {
        let height = grid[lv + 1u]; let blend = grid[lv + 2u];
        if (ground.d > height + blend) {
            below = min(below, ground.d - height - 0.5lf * blend);
        } else {
            let c = cell_index(lv, floor(p / grid[lv]));
            if (c < u32(grid[lv + 3u])) {
                let starts = u32(grid[lv + 5u]);
                let items = u32(grid[lv + 6u]);
                for (var k = u32(grid[starts + c]); k < u32(grid[starts + c + 1u]); k++) {
                    let b = first + BOULDER_LEN * u32(grid[items + k]);
                    let kb = grid[b + 15u];
                    if (length(p - gv(b)) - grid[b + 12u] >= cur.d + kb) { continue; }
                    cur = smin(cur, boulder(p, b), kb);
                }
            }
        }
        lv += LEVEL_LEN;
    }
    if (cur.d > below) { return Field(below, ground.g); }
    return cur;
}

// The polynomial smooth minimum of tumble-geometry's `SmoothUnion` with blend radius k.
fn smin(a: Field, b: Field, k: f64) -> Field {
    let h = clamp(0.5lf + 0.5lf * (b.d - a.d) / k, 0.0lf, 1.0lf);
    return Field(b.d * (1.0lf - h) + a.d * h - k * h * (1.0lf - h), a.g * h + b.g * (1.0lf - h));
}

// Boulder b's exact signed distance and outward normal (tumble-geometry's `Ellipsoid::eval` in
// the boulder's axes): the closest point by Eberly's method (first octant, the root of
// Σ (rᵢ zᵢ / (s + rᵢ))² = 1 by bisection), the sign from inside the ellipsoid, the normal ∝ x/a².
fn boulder(p0: vec3<f64>, b: u32) -> Field {
    let axes = mat3x3<f64>(gv(b + 3u), gv(b + 6u), gv(b + 9u));
    let e = gv(b + 12u);
    let p = transpose(axes) * (p0 - gv(b));
    let y = abs(p);
    // The sub-problem: the ellipsoid's root (plane 3), an ellipse's in the plane of axes
    // (ia, ib), or a closed form.
    var plane = 3u; var ia = 0u; var ib = 1u;
    var r = vec3<f64>(1.0lf); var z = vec3<f64>(0.0lf); var last = 2u; var g = 0.0lf;
    var x = y; var d = 0.0lf; var closed = false;
    if (y.z > 0.0lf) {
        if (y.y > 0.0lf && y.x > 0.0lf) {
            z = y / e;
            g = z.x * z.x + z.y * z.y + z.z * z.z - 1.0lf;
            closed = g == 0.0lf;
            r = vec3<f64>((e.x / e.z) * (e.x / e.z), (e.y / e.z) * (e.y / e.z), 1.0lf);
        } else if (y.y > 0.0lf) {
            plane = 0u; ia = 1u; ib = 2u;
        } else if (y.x > 0.0lf) {
            plane = 1u; ia = 0u; ib = 2u;
        } else {
            x = vec3<f64>(0.0lf, 0.0lf, e.z); d = abs(y.z - e.z); closed = true;
        }
    } else {
        let denom = vec2<f64>(e.x * e.x - e.z * e.z, e.y * e.y - e.z * e.z);
        let numer = vec2<f64>(e.x * y.x, e.y * y.y);
        plane = 2u;
        if (numer.x < denom.x && numer.y < denom.y) {
            let xde = numer / denom;
            let discr = 1.0lf - xde.x * xde.x - xde.y * xde.y;
            if (discr > 0.0lf) {
                x = vec3<f64>(e.x * xde.x, e.y * xde.y, e.z * sqrt(discr));
                let o = x - y;
                d = sqrt(o.x * o.x + o.y * o.y + o.z * o.z);
                closed = true;
            }
        }
    }
    let e2 = vec2<f64>(e[ia], e[ib]);
    let y2 = vec2<f64>(y[ia], y[ib]);
    var x2 = y2;
    if (!closed && plane < 3u) {
        // tumble-geometry's `point_ellipse` on (e2, y2).
        if (y2.y > 0.0lf) {
            if (y2.x > 0.0lf) {
                z = vec3<f64>(y2.x / e2.x, y2.y / e2.y, 0.0lf);
                g = z.x * z.x + z.y * z.y - 1.0lf;
                closed = g == 0.0lf;
                r = vec3<f64>((e2.x / e2.y) * (e2.x / e2.y), 1.0lf, 1.0lf);
                last = 1u;
            } else {
                x2 = vec2<f64>(0.0lf, e2.y); d = abs(y2.y - e2.y); closed = true;
            }
        } else {
            let numer0 = e2.x * y2.x; let denom0 = e2.x * e2.x - e2.y * e2.y;
            if (numer0 < denom0) {
                let xde0 = numer0 / denom0;
                x2 = vec2<f64>(e2.x * xde0, e2.y * sqrt(1.0lf - xde0 * xde0));
                d = sqrt((x2.x - y2.x) * (x2.x - y2.x) + x2.y * x2.y);
            } else {
                x2 = vec2<f64>(e2.x, 0.0lf); d = abs(y2.x - e2.x);
            }
            closed = true;
        }
    }
    if (!closed) {
        let s = root(r, z, last, g);
        if (plane == 3u) {
            x = vec3<f64>(r.x * y.x / (s + r.x), r.y * y.y / (s + r.y), y.z / (s + 1.0lf));
            let o = x - y;
            d = sqrt(o.x * o.x + o.y * o.y + o.z * o.z);
        } else {
            x2 = vec2<f64>(r.x * y2.x / (s + r.x), y2.y / (s + 1.0lf));
            d = sqrt((x2.x - y2.x) * (x2.x - y2.x) + (x2.y - y2.y) * (x2.y - y2.y));
        }
    }
    if (plane < 3u) {
        x = vec3<f64>(0.0lf);
        x[ia] = x2.x;
        x[ib] = x2.y;
    }
    // The closest point in the boulder's octant of p, the normal there ∝ x/a².
    let c = select(x, -x, p < vec3<f64>(0.0lf));
    let q = p / e;
    if (q.x * q.x + q.y * q.y + q.z * q.z < 1.0lf) { d = -d; }
    let m = c / (e * e);
    return Field(d, axes * (m / sqrt(m.x * m.x + m.y * m.y + m.z * m.z)));
}

// The root s of Σ (rᵢ zᵢ / (s + rᵢ))² − 1 = 0 by bisection (Eberly's GetRoot; terms past
// `last` are zero).
fn root(r: vec3<f64>, z: vec3<f64>, last: u32, g: f64) -> f64 {
    let n = r * z;
    var s0 = z[last] - 1.0lf;
    var s1 = 0.0lf;
    if (g >= 0.0lf) {
        let m = max(max(abs(n.x), abs(n.y)), abs(n.z));
        var length = 0.0lf;
        if (m > 0.0lf) {
            let u = n / m;
            length = m * sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
        }
        s1 = length - 1.0lf;
    }
    var s = 0.0lf;
    for (var it = 0u; it < MAX_BISECTIONS; it++) {
        s = 0.5lf * (s0 + s1);
        if (s == s0 || s == s1) { break; }
        let t = n / (vec3<f64>(s) + r);
        let gs = t.x * t.x + t.y * t.y + t.z * t.z - 1.0lf;
        if (gs > 0.0lf) { s0 = s; } else if (gs < 0.0lf) { s1 = s; } else { break; }
    }
    return s;
}

// ---- Latitude–longitude region grids (tumble-geometry's `RegionGrid::weight`): at
// `M_REGION_GRID` in `grid` the centre, the frame's rows (longitude 0, 90° east, the pole), the
// row and column counts and the weights row by row (south to north; the poles' rows their mean).
const PI: f64 = PI_64;
const TAU: f64 = 6.283185307179586lf; // 2π

fn region_value(at: u32, cols: u32, i: u32, j: u32) -> f64 { return grid[at + 14u + i * cols + j % cols]; }

fn region_grid(p: vec3<f64>, at: u32) -> Noise {
    let axes = transpose(mat3x3<f64>(gv(at + 3u), gv(at + 6u), gv(at + 9u)));
    let rows = u32(grid[at + 12u]); let cols = u32(grid[at + 13u]);
    let r = axes * (p - gv(at));
    let rho2 = r.x * r.x + r.y * r.y;
    let n2 = rho2 + r.z * r.z;
    if (n2 == 0.0lf) { return Noise(region_value(at, cols, rows / 2u, 0u), vec3<f64>(0.0lf)); }
    // (math.wgsl's atan2, within a few ulps of the C library's.)
    let lat = atan2_64(r.z, sqrt(rho2)); let lon = atan2_64(r.y, r.x);
    let dlat = PI / f64(rows - 1u);
    let dlon = TAU / f64(cols);
    let fi = clamp((lat + 0.5lf * PI) / dlat, 0.0lf, f64(rows - 1u));
    // (lon + π) mod 2π, lon within [−π, π].
    var a = lon + PI;
    if (a >= TAU) { a -= TAU; }
    let fj = a / dlon;
    let i = min(u32(floor(fi)), rows - 2u);
    let j = min(u32(floor(fj)), cols - 1u);
    let s = fi - f64(i); let t = fj - f64(j);
    let v00 = region_value(at, cols, i, j); let v01 = region_value(at, cols, i, j + 1u);
    let v10 = region_value(at, cols, i + 1u, j); let v11 = region_value(at, cols, i + 1u, j + 1u);
    let w = (1.0lf - s) * ((1.0lf - t) * v00 + t * v01) + s * ((1.0lf - t) * v10 + t * v11);
    let dw_ds = (1.0lf - t) * (v10 - v00) + t * (v11 - v01);
    let dw_dt = (1.0lf - s) * (v01 - v00) + s * (v11 - v10);
    if (rho2 == 0.0lf) { return Noise(w, vec3<f64>(0.0lf)); }
    let rho = sqrt(rho2);
    let grad_lat = (vec3<f64>(0.0lf, 0.0lf, 1.0lf) - r * (r.z / n2)) / rho;
    let grad_lon = vec3<f64>(-r.y, r.x, 0.0lf) / rho2;
    let g = grad_lat * (dw_ds / dlat) + grad_lon * (dw_dt / dlon);
    return Noise(w, transpose(axes) * g);
}
