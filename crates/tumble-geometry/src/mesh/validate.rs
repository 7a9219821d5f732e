//! Mesh validation (closed, consistently oriented, outward, degenerate, unused, duplicate and
//! non-finite elements) and repair on request.

use super::TriMesh;
use std::collections::HashMap;
use tumble_math::Vec3;

/// What a mesh is and what is wrong with it. Counts, and the first offending elements
/// (0-based indices) so that a user can find them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeshReport {
    /// Vertices.
    pub vertices: usize,
    /// Faces.
    pub faces: usize,
    /// Undirected edges.
    pub edges: usize,
    /// Vertices with a NaN or infinite coordinate.
    pub non_finite_vertices: Found<usize>,
    /// Faces with a repeated vertex index or zero area.
    pub degenerate_faces: Found<usize>,
    /// Vertices no face uses.
    pub unused_vertices: Found<usize>,
    /// Vertices at exactly the position of an earlier vertex.
    pub duplicate_vertices: Found<usize>,
    /// Edges used by one face only (`[a, b]` vertex pairs): holes.
    pub boundary_edges: Found<[u32; 2]>,
    /// Edges used by more than two faces.
    pub non_manifold_edges: Found<[u32; 2]>,
    /// Edges traversed twice in the same direction: neighbouring faces disagree in orientation.
    pub misoriented_edges: Found<[u32; 2]>,
    /// Signed volume (positive for outward faces), m³; meaningful for a closed mesh.
    pub signed_volume: f64,
    /// Euler characteristic V − E + F over the used vertices (2 for a sphere-like body).
    pub euler_characteristic: i64,
    /// Every edge in exactly two faces.
    pub closed: bool,
    /// Every edge traversed once in each direction.
    pub oriented: bool,
    /// Closed, oriented and with positive volume.
    pub outward: bool,
}

/// Most offending elements listed per kind (the counts are complete).
const LIST: usize = 10;

/// How many elements have a problem, and the first of them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Found<T> {
    /// How many.
    pub count: usize,
    /// The first few (at most 10), 0-based.
    pub first: Vec<T>,
}

impl<T> Found<T> {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

fn trunc<T>(mut v: Vec<T>) -> Found<T> {
    let count = v.len();
    v.truncate(LIST);
    Found { count, first: v }
}

/// Repairs to apply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Repair {
    /// Merge vertices within this distance (m) of each other (0: exact duplicates only).
    pub weld_tolerance: f64,
}

impl TriMesh {
    /// Checks the mesh and reports every problem found.
    pub fn report(&self) -> MeshReport {
        let non_finite_vertices: Vec<usize> =
            (0..self.vertices.len()).filter(|&i| self.vertices[i].iter().any(|c| !c.is_finite())).collect();
        let mut used = vec![false; self.vertices.len()];
        let mut degenerate_faces = Vec::new();
        let mut directed: HashMap<[u32; 2], u32> = HashMap::new();
        let mut signed_volume = 0.0;
        for (fi, f) in self.faces.iter().enumerate() {
            if f.iter().any(|&i| i as usize >= self.vertices.len()) {
                degenerate_faces.push(fi);
                continue;
            }
            f.iter().for_each(|&i| used[i as usize] = true);
            let [a, b, c] = self.triangle(fi);
            if f[0] == f[1] || f[1] == f[2] || f[0] == f[2] || (b - a).cross(&(c - a)).norm_squared() == 0.0 {
                degenerate_faces.push(fi);
            }
            signed_volume += a.dot(&b.cross(&c)) / 6.0;
            for k in 0..3 {
                *directed.entry([f[k], f[(k + 1) % 3]]).or_insert(0) += 1;
            }
        }
        let mut undirected: HashMap<[u32; 2], u32> = HashMap::new();
        let mut misoriented_edges = Vec::new();
        for (&[a, b], &n) in &directed {
            *undirected.entry([a.min(b), a.max(b)]).or_insert(0) += n;
            if n > 1 {
                misoriented_edges.push([a.min(b), a.max(b)]);
            }
        }
        misoriented_edges.sort_unstable();
        misoriented_edges.dedup();
        let mut boundary_edges: Vec<[u32; 2]> = undirected.iter().filter(|(_, n)| **n == 1).map(|(e, _)| *e).collect();
        let mut non_manifold_edges: Vec<[u32; 2]> =
            undirected.iter().filter(|(_, n)| **n > 2).map(|(e, _)| *e).collect();
        boundary_edges.sort_unstable();
        non_manifold_edges.sort_unstable();
        let mut seen: HashMap<[u64; 3], usize> = HashMap::new();
        let mut duplicate_vertices = Vec::new();
        for (i, v) in self.vertices.iter().enumerate() {
            let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
            if seen.insert(key, i).is_some() {
                duplicate_vertices.push(i);
            }
        }
        let unused_vertices: Vec<usize> = (0..used.len()).filter(|&i| !used[i]).collect();
        let closed = boundary_edges.is_empty() && non_manifold_edges.is_empty() && !self.faces.is_empty();
        let oriented = closed && misoriented_edges.is_empty();
        let n_used = used.iter().filter(|&&u| u).count() as i64;
        MeshReport {
            vertices: self.vertices.len(),
            faces: self.faces.len(),
            edges: undirected.len(),
            euler_characteristic: n_used - undirected.len() as i64 + self.faces.len() as i64,
            signed_volume,
            closed,
            oriented,
            outward: oriented && signed_volume > 0.0 && non_finite_vertices.is_empty(),
            non_finite_vertices: trunc(non_finite_vertices),
            degenerate_faces: trunc(degenerate_faces),
            unused_vertices: trunc(unused_vertices),
            duplicate_vertices: trunc(duplicate_vertices),
            boundary_edges: trunc(boundary_edges),
            non_manifold_edges: trunc(non_manifold_edges),
            misoriented_edges: trunc(misoriented_edges),
        }
    }

    /// A repaired copy: duplicate vertices welded, degenerate faces and unused vertices
    /// dropped, faces re-oriented consistently across each connected piece, and the whole
    /// turned outward (positive volume).
    pub fn repaired(&self, opts: Repair) -> TriMesh {
        // Weld: snap to a grid of the tolerance (exact bits when 0), first vertex wins.
        let mut map = vec![0u32; self.vertices.len()];
        let mut vertices: Vec<Vec3> = Vec::new();
        let mut index: HashMap<[i64; 3], u32> = HashMap::new();
        for (i, v) in self.vertices.iter().enumerate() {
            let key = if opts.weld_tolerance > 0.0 {
                [v.x, v.y, v.z].map(|c| (c / opts.weld_tolerance).round() as i64)
            } else {
                [v.x, v.y, v.z].map(|c| c.to_bits() as i64)
            };
            map[i] = *index.entry(key).or_insert_with(|| {
                vertices.push(*v);
                (vertices.len() - 1) as u32
            });
        }
        let mut faces: Vec<[u32; 3]> = self
            .faces
            .iter()
            .filter(|f| f.iter().all(|&i| (i as usize) < map.len()))
            .map(|f| f.map(|i| map[i as usize]))
            .filter(|f| {
                let [a, b, c] = f.map(|i| vertices[i as usize]);
                f[0] != f[1] && f[1] != f[2] && f[0] != f[2] && (b - a).cross(&(c - a)).norm_squared() > 0.0
            })
            .collect();
        orient_consistently(&mut faces);
        // Drop unused vertices.
        let mut new_index = vec![u32::MAX; vertices.len()];
        let mut kept = Vec::new();
        for f in &mut faces {
            for i in f.iter_mut() {
                if new_index[*i as usize] == u32::MAX {
                    new_index[*i as usize] = kept.len() as u32;
                    kept.push(vertices[*i as usize]);
                }
                *i = new_index[*i as usize];
            }
        }
        let mut mesh = TriMesh { vertices: kept, faces };
        if mesh.report().signed_volume < 0.0 {
            mesh.faces.iter_mut().for_each(|f| f.swap(1, 2));
        }
        mesh
    }
}

/// Flips faces so that neighbours traverse shared edges in opposite directions (breadth-first
/// over each connected piece, the first face of a piece keeping its orientation).
fn orient_consistently(faces: &mut [[u32; 3]]) {
    let mut by_edge: HashMap<[u32; 2], Vec<usize>> = HashMap::new();
    for (fi, f) in faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f[k], f[(k + 1) % 3]);
            by_edge.entry([a.min(b), a.max(b)]).or_default().push(fi);
        }
    }
    let mut done = vec![false; faces.len()];
    let mut queue = std::collections::VecDeque::new();
    for start in 0..faces.len() {
        if done[start] {
            continue;
        }
        done[start] = true;
        queue.push_back(start);
        while let Some(fi) = queue.pop_front() {
            let f = faces[fi];
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                for &g in &by_edge[&[a.min(b), a.max(b)]] {
                    if done[g] {
                        continue;
                    }
                    // g must traverse the edge b→a; if it has a→b, flip it.
                    let h = faces[g];
                    if (0..3).any(|m| h[m] == a && h[(m + 1) % 3] == b) {
                        faces[g].swap(1, 2);
                    }
                    done[g] = true;
                    queue.push_back(g);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_primitives_validate() {
        for m in [TriMesh::cuboid([1.0, 2.0, 3.0]), TriMesh::ellipsoid([1.0, 0.5, 0.3], 3)] {
            let r = m.report();
            assert!(r.closed && r.oriented && r.outward, "{r:?}");
            assert_eq!(r.euler_characteristic, 2);
            assert!(r.degenerate_faces.is_empty() && r.unused_vertices.is_empty() && r.duplicate_vertices.is_empty());
        }
        assert!((TriMesh::cuboid([1.0, 2.0, 3.0]).report().signed_volume - 6.0).abs() < 1e-12);
    }

    #[test]
    fn finds_holes_misorientation_and_repairs_them() {
        let good = TriMesh::ellipsoid([1.0, 1.0, 1.0], 2);
        let mut open = good.clone();
        open.faces.pop();
        let r = open.report();
        assert!(!r.closed && r.boundary_edges.count == 3, "{r:?}");

        let mut flipped = good.clone();
        for f in flipped.faces.iter_mut().step_by(7) {
            f.swap(1, 2);
        }
        let r = flipped.report();
        assert!(r.closed && !r.oriented && !r.misoriented_edges.is_empty());
        let fixed = flipped.repaired(Repair::default());
        let r = fixed.report();
        assert!(r.oriented && r.outward, "{r:?}");
        assert!((r.signed_volume - good.report().signed_volume).abs() < 1e-12);

        // Inside-out, with a duplicated vertex and an unused one.
        let mut bad = good.clone();
        bad.faces.iter_mut().for_each(|f| f.swap(1, 2));
        bad.vertices.push(bad.vertices[0]);
        bad.faces[0][0] = (bad.vertices.len() - 1) as u32;
        bad.vertices.push(Vec3::new(9.0, 9.0, 9.0));
        let r = bad.report();
        assert!(r.signed_volume < 0.0 && r.duplicate_vertices.count == 1 && r.unused_vertices.count == 1);
        let fixed = bad.repaired(Repair::default());
        let r = fixed.report();
        assert!(r.outward && r.unused_vertices.is_empty() && r.duplicate_vertices.is_empty(), "{r:?}");
        assert_eq!(fixed.vertices.len(), good.vertices.len());
    }
}
