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

// The surface's signed distance and gradient at p (T frame): the base surface, then the terrain's
// heights (tumble-geometry's `Terrain`: sandy and rocky fBm blended by a smoothstep of the
// region fBm, measured from the terrain's origin).
fn field(p0: vec3<f64>) -> Field {
    let base = base_field(p0);
    if (mp(M_TERRAIN) == 0.0lf) { return base; }
    let p = p0 - v3(M_TERRAIN_ORIGIN);
    // Rocky weight w = smoothstep of the region field, and its gradient.
    let r = fbm(p, M_TERRAIN + 15u);
    let width = mp(M_TERRAIN + 23u);
    let x = (r.v - mp(M_TERRAIN + 22u)) / width + 0.5lf;
    var w = 0.0lf;
    var dw = vec3<f64>(0.0lf);
    if (x >= 1.0lf) {
        w = 1.0lf;
    } else if (x > 0.0lf) {
        w = x * x * (3.0lf - 2.0lf * x);
        dw = 6.0lf * x * (1.0lf - x) / width * r.g;
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
