"""Writes guide.obj and guide.gltf: the same contact geometry of a small guide fixture, as
Blender exports it (Y-up: a Z-up point (x, y, z) is written (x, z, -y)), for the import example
and its test. OBJ names carry the primitive type; the glTF nodes carry it in `extras` for two
of them and place the roller with a node translation. Run: python3 make_guide.py"""
import base64, json, math, struct

def yup(p):
    x, y, z = p
    return (x, z, -y)

# Z-up geometry, metres.
box = [(sx * 0.1, sy * 0.1, 0.1 + sz * 0.1) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
# Cube faces (indices into box), counter-clockwise from outside.
box_faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
roller_c, roller_r = (0.3, 0.0, 0.05), 0.05
octa = [(roller_r * s if i == k else 0.0) for k in range(3) for s in (-1, 1) for i in range(3)]
octa = [tuple(octa[3 * j: 3 * j + 3]) for j in range(6)]
octa_faces = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
feet = [(0.5, 0.0, 0.0), (-0.25, 0.4330127, 0.0), (-0.25, -0.4330127, 0.0)]
rail = [(-0.4, 0.2, 0.0), (0.0, 0.2, 0.0), (0.4, 0.25, 0.0)]
c30, s30 = math.cos(math.pi / 6), math.sin(math.pi / 6)
bump_c, bump_r = (0.0, -0.3, 0.05), (0.08, 0.04, 0.03)
axes = [(c30, s30, 0.0), (-s30, c30, 0.0), (0.0, 0.0, 1.0)]
bumper = [tuple(bump_c[i] + s * bump_r[k] * axes[k][i] for i in range(3)) for k in range(3) for s in (-1, 1)]
floor = [(-1.0, -1.0, -0.01), (1.0, -1.0, -0.01), (1.0, 1.0, -0.01), (-1.0, 1.0, -0.01)]
probe = [(0.0, 0.0, 0.5), (0.0, 0.0, 0.3)]

objects = [
    ("hull_housing@steel.001", box, [list(f) for f in box_faces], []),
    ("sphere_roller@rubber", [tuple(roller_c[i] + v[i] for i in range(3)) for v in octa], [list(f) for f in octa_faces], []),
    ("points_feet", feet, [], []),
    ("segments_rail", rail, [], [[0, 1, 2]]),
    ("ellipsoid_bumper", bumper, [], []),
    ("plane_floor", floor, [[0, 1, 2, 3]], []),
    ("ray_probe", probe, [], [[0, 1]]),
]

with open("guide.obj", "w") as f:
    f.write("# Blender-style OBJ (Y up, metres) of the guide fixture; written by make_guide.py\n")
    base = 1
    for name, verts, faces, lines in objects:
        f.write(f"o {name}\n")
        for v in verts:
            f.write("v %.9f %.9f %.9f\n" % yup(v))
        for face in faces:
            f.write("f " + " ".join(str(base + i) for i in face) + "\n")
        for line in lines:
            f.write("l " + " ".join(str(base + i) for i in line) + "\n")
        base += len(verts)

# glTF: one buffer; per object a POSITION accessor and, if it has faces or lines, indices.
blob, views, accessors, meshes, nodes = b"", [], [], [], []
def add(data, target):
    global blob
    while len(blob) % 4:
        blob += b"\0"
    views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
    blob += data
    return len(views) - 1
for name, verts, faces, lines in objects:
    local = verts
    translation = None
    if name.startswith("sphere_roller"):
        # The roller is modelled about its own origin and placed by the node.
        translation = list(yup(roller_c))
        local = [tuple(v[i] - roller_c[i] for i in range(3)) for v in verts]
    pts = [yup(v) for v in local]
    pos = add(b"".join(struct.pack("<3f", *p) for p in pts), 34962)
    accessors.append({"bufferView": pos, "componentType": 5126, "count": len(pts), "type": "VEC3",
                      "min": [min(p[i] for p in pts) for i in range(3)], "max": [max(p[i] for p in pts) for i in range(3)]})
    prim = {"attributes": {"POSITION": len(accessors) - 1}}
    if faces:
        tri = [i for face in faces for k in range(1, len(face) - 1) for i in (face[0], face[k], face[k + 1])]
        idx = add(b"".join(struct.pack("<H", i) for i in tri), 34963)
        accessors.append({"bufferView": idx, "componentType": 5123, "count": len(tri), "type": "SCALAR"})
        prim["indices"] = len(accessors) - 1
    elif lines:
        seg = [i for line in lines for a, b in zip(line, line[1:]) for i in (a, b)]
        idx = add(b"".join(struct.pack("<H", i) for i in seg), 34963)
        accessors.append({"bufferView": idx, "componentType": 5123, "count": len(seg), "type": "SCALAR"})
        prim["indices"] = len(accessors) - 1
        prim["mode"] = 1
    else:
        prim["mode"] = 0
    meshes.append({"name": name, "primitives": [prim]})
    node = {"name": name, "mesh": len(meshes) - 1}
    if translation:
        node["translation"] = translation
    if name.startswith("hull_housing"):
        # Named like any Blender object; the type and set come from its custom properties.
        node["name"] = "Housing"
        node["extras"] = {"tumble_type": "hull", "tumble_contact": "steel"}
    nodes.append(node)
doc = {
    "asset": {"version": "2.0", "generator": "make_guide.py"},
    "scene": 0,
    "scenes": [{"nodes": list(range(len(nodes)))}],
    "nodes": nodes,
    "meshes": meshes,
    "accessors": accessors,
    "bufferViews": views,
    "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
}
with open("guide.gltf", "w") as f:
    json.dump(doc, f, indent=1)
