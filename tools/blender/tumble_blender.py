"""Tag Blender objects for Tumble's contact engine and export the scene as glTF.

Tumble reads a glTF scene as a contact model (docs/contact_engine.md, "Models from Blender"):
the parenting tree is the group tree, a `movable` object is a body with its children, and each
object's custom properties (glTF `extras`) give its primitive type, contact set and bounding
volume; contact sets (law, friction, priority) are custom properties too. This module sets
those properties and exports. Its functions take anything that stores items by key, so the
same calls tag a Blender object, the scene, or a plain dict (the tests use dicts).

In Blender (Scripting workspace, or headless):

    import sys; sys.path.append("/path/to/tumble/tools/blender")
    import tumble_blender as tb
    import bpy
    scene, obj = bpy.context.scene, bpy.data.objects
    tb.contact_set(scene, "steel", k=1e6, c=100, friction=tb.bristle(mu=0.3, stiffness=1e4, damping=50))
    tb.contact(scene, "steel")                 # the default set of the whole model
    tb.primitive(obj["Plate"], "hull")         # the plate's mesh becomes its convex hull
    tb.movable(obj["HookPivot"])               # the hook and its children are a body
    tb.primitive(obj["Tip"], "sphere")
    tb.ignore(obj["Bolt"])                     # a visual mesh, left out of the contact model
    tb.export("/tmp/latch.glb")

or `blender -b latch.blend --python tumble_blender.py -- /tmp/latch.glb` to export a scene
tagged before. Then `tumble model /tmp/latch.glb` lists the bodies, groups, primitives and
sets Tumble reads from it.
"""

import sys

TYPES = ("point", "segment", "ray", "plane", "sphere", "ellipsoid", "triangle", "polyhedron", "hull")
BOUNDING_VOLUMES = ("aabb", "sphere", "obb")


def primitive(obj, kind):
    """How the object's mesh becomes primitives: one of TYPES (see docs/contact_engine.md)."""
    if kind not in TYPES:
        raise ValueError(f"primitive type {kind!r}: expected one of {', '.join(TYPES)}")
    obj["tumble_type"] = kind


def ignore(obj):
    """Leaves the object's mesh out of the contact model (a visual mesh); its children stay."""
    obj["tumble_type"] = "ignore"


def movable(obj, value=True):
    """Makes the object and its children a body of its own, driven by the dynamics."""
    obj["movable"] = bool(value)


def contact(obj, name):
    """The contact set of the object's primitives and of everything below it."""
    obj["tumble_contact"] = str(name)


def bounding_volume(obj, kind):
    """The bounding volume of the object's group: 'aabb' (default), 'sphere' or 'obb'."""
    if kind not in BOUNDING_VOLUMES:
        raise ValueError(f"bounding volume {kind!r}: expected one of {', '.join(BOUNDING_VOLUMES)}")
    obj["tumble_bv"] = kind


def law(k, p=1.0, c=None, alpha=None, restitution=None):
    """A normal law k δ^p (N/m^p) with at most one damping: c (N·s/m), alpha (Hunt–Crossley, s/m)
    or restitution (Flores)."""
    if sum(x is not None for x in (c, alpha, restitution)) > 1:
        raise ValueError("give at most one of c, alpha and restitution")
    out = {"k": float(k), "p": float(p)}
    for key, value in (("c", c), ("alpha", alpha), ("restitution", restitution)):
        if value is not None:
            out[key] = float(value)
    return out


def bristle(mu, stiffness, damping, mu_static=None):
    """Bristle friction: kinetic mu, static mu_static (default mu), stiffness N/m, damping N·s/m."""
    out = {"model": "bristle", "mu": float(mu), "stiffness": float(stiffness), "damping": float(damping)}
    if mu_static is not None:
        out["mu_static"] = float(mu_static)
    return out


def coulomb(mu, v_star):
    """Regularised Coulomb friction: mu, and the slip speed v_star (m/s) of full friction."""
    return {"model": "coulomb", "mu": float(mu), "v_star": float(v_star)}


def contact_set(obj, name, k, p=1.0, c=None, alpha=None, restitution=None, friction=None, priority=0,
                volume_law=None):
    """Defines contact set `name` on an object or the scene (each name once in a file): the
    depth law (see `law`), friction (`bristle`, `coulomb`, or None), the priority (the higher
    set acts where two meet) and optionally a volume law (`law(...)` in N/m³)."""
    old = obj.get("tumble_sets")
    sets = old.to_dict() if hasattr(old, "to_dict") else dict(old or {})
    entry = {"law": law(k, p, c, alpha, restitution), "priority": int(priority)}
    if friction is not None:
        entry["friction"] = dict(friction)
    if volume_law is not None:
        entry["volume_law"] = dict(volume_law)
    sets[name] = entry
    obj["tumble_sets"] = sets


def export(path):
    """Exports the open scene as glTF (.glb or .gltf by the name): Y up, custom properties as
    extras, modifiers applied, as Tumble reads it."""
    import bpy  # noqa: PLC0415 (only inside Blender)

    fmt = "GLB" if path.lower().endswith(".glb") else "GLTF_SEPARATE"
    bpy.ops.export_scene.gltf(filepath=path, export_format=fmt, export_extras=True, export_yup=True,
                              export_apply=True)


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(args) != 1:
        sys.exit("usage: blender -b SCENE.blend --python tumble_blender.py -- OUT.glb")
    export(args[0])
