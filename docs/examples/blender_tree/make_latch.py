"""Builds the latch example of docs/contact_engine.md ("Models from Blender") and exports it
as glTF: a base plate, a visual bolt left out of the contact model, and a hook on a movable
pivot with a rubber tip, tagged by tools/blender/tumble_blender.py.

In Blender (headless): blender -b --python make_latch.py -- OUT.glb
Without Blender:       python3 make_latch.py OUT.gltf   (needs pygltflib; writes the file as
                       Blender's exporter does: Y up, custom properties as node extras)

`latch.gltf` beside this script was written the second way. The scene, in Blender's Z-up
coordinates (metres):

  Plate      box [-0.2, 0.2] x [-0.2, 0.2] x [-0.01, 0], typed hull
  Bolt       box 2 cm wide at (0.15, 0.15, 0.01), ignored (a visual mesh)
  HookPivot  an empty at (0.1, 0, 0.05), turned 30 deg about Z, movable, OBB
    hull_hook  box [0, 0.2] x [-0.02, 0.02] x [-0.02, 0.02] in the pivot (typed by its name)
    Tip        octahedron of radius 0.01 at (0.2, 0, 0) in the pivot, scaled 2: a sphere of
               0.02 m; contact set "rubber" (defined on it)
  the scene: contact set "steel" (defined on it), the default of every primitive
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "blender"))
import tumble_blender as tb  # noqa: E402


def box(lo, hi):
    """Corners and quad faces (counter-clockwise from outside) of an axis-aligned box."""
    v = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return v, faces


def octahedron(r):
    v = [(r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r)]
    faces = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    return v, faces


HALF = math.radians(30.0) / 2.0
# name: (mesh or None, location, quaternion wxyz, scale, parent, tags)
OBJECTS = {
    "Plate": (box((-0.2, -0.2, -0.01), (0.2, 0.2, 0.0)), (0, 0, 0), (1, 0, 0, 0), (1, 1, 1), None,
              lambda o: tb.primitive(o, "hull")),
    "Bolt": (box((-0.01, -0.01, -0.01), (0.01, 0.01, 0.01)), (0.15, 0.15, 0.01), (1, 0, 0, 0), (1, 1, 1), None,
             tb.ignore),
    "HookPivot": (None, (0.1, 0.0, 0.05), (math.cos(HALF), 0, 0, math.sin(HALF)), (1, 1, 1), None,
                  lambda o: (tb.movable(o), tb.bounding_volume(o, "obb"))),
    "hull_hook": (box((0.0, -0.02, -0.02), (0.2, 0.02, 0.02)), (0, 0, 0), (1, 0, 0, 0), (1, 1, 1), "HookPivot",
                  lambda o: None),
    "Tip": (octahedron(0.01), (0.2, 0.0, 0.0), (1, 0, 0, 0), (2, 2, 2), "HookPivot",
            lambda o: (tb.primitive(o, "sphere"), tb.contact(o, "rubber"),
                       tb.contact_set(o, "rubber", k=2e5, alpha=0.5, friction=tb.coulomb(mu=0.8, v_star=1e-3),
                                      priority=1))),
}


def tag_scene(scene):
    tb.contact_set(scene, "steel", k=1e6, c=100.0, friction=tb.bristle(mu=0.3, stiffness=1e4, damping=50.0))
    tb.contact(scene, "steel")


def in_blender(out):
    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    made = {}
    for name, (mesh, loc, quat, scale, parent, tag) in OBJECTS.items():
        data = None
        if mesh:
            data = bpy.data.meshes.new(name)
            data.from_pydata(mesh[0], [], mesh[1])
        obj = bpy.data.objects.new(name, data)
        bpy.context.scene.collection.objects.link(obj)
        obj.rotation_mode = "QUATERNION"
        obj.location, obj.rotation_quaternion, obj.scale = loc, quat, scale
        if parent:
            obj.parent = made[parent]
        tag(obj)
        made[name] = obj
    tag_scene(bpy.context.scene)
    tb.export(out)


def without_blender(out):
    """The glTF Blender's exporter writes for the scene: Y up ((x, y, z) -> (x, z, -y) for
    locations and vertices, quaternions likewise, scales (x, z, y)), custom properties as
    extras, one mesh per object."""
    import pygltflib as g

    yup = lambda v: (v[0], v[2], -v[1])  # noqa: E731
    blob, nodes, meshes, accessors, views = b"", [], [], [], []

    def view(data, target):
        nonlocal blob
        blob += b"\0" * (-len(blob) % 4)
        views.append(g.BufferView(buffer=0, byteOffset=len(blob), byteLength=len(data), target=target))
        blob += data
        return len(views) - 1

    index = {name: i for i, name in enumerate(OBJECTS)}
    for name, (mesh, loc, quat, scale, parent, tag) in OBJECTS.items():
        extras = {}
        tag(extras)
        node = g.Node(name=name, translation=list(yup(loc)), rotation=[quat[1], quat[3], -quat[2], quat[0]],
                      scale=[scale[0], scale[2], scale[1]], extras=extras,
                      children=[index[c] for c, o in OBJECTS.items() if o[4] == name])
        if mesh:
            pts = [yup(v) for v in mesh[0]]
            pos = view(b"".join(struct.pack("<3f", *p) for p in pts), g.ARRAY_BUFFER)
            accessors.append(g.Accessor(bufferView=pos, componentType=g.FLOAT, count=len(pts), type=g.VEC3,
                                        min=[min(p[i] for p in pts) for i in range(3)],
                                        max=[max(p[i] for p in pts) for i in range(3)]))
            tri = [i for f in mesh[1] for k in range(1, len(f) - 1) for i in (f[0], f[k], f[k + 1])]
            idx = view(b"".join(struct.pack("<H", i) for i in tri), g.ELEMENT_ARRAY_BUFFER)
            accessors.append(g.Accessor(bufferView=idx, componentType=g.UNSIGNED_SHORT, count=len(tri),
                                        type=g.SCALAR))
            meshes.append(g.Mesh(name=name, primitives=[g.Primitive(
                attributes=g.Attributes(POSITION=len(accessors) - 2), indices=len(accessors) - 1)]))
            node.mesh = len(meshes) - 1
        nodes.append(node)
    scene_extras = {}
    tag_scene(scene_extras)
    roots = [index[n] for n, o in OBJECTS.items() if o[4] is None]
    doc = g.GLTF2(asset=g.Asset(generator="make_latch.py (pygltflib, as Blender exports)", version="2.0"),
                  scene=0, scenes=[g.Scene(name="latch", nodes=roots, extras=scene_extras)], nodes=nodes,
                  meshes=meshes, accessors=accessors, bufferViews=views, buffers=[g.Buffer(byteLength=len(blob))])
    doc.set_binary_blob(blob)
    if out.lower().endswith(".gltf"):
        doc.convert_buffers(g.BufferFormat.DATAURI)
    doc.save(out)


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    out = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "latch.gltf")
    try:
        import bpy  # noqa: F401
    except ImportError:
        without_blender(out)
    else:
        in_blender(out)
