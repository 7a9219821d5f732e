"""Writes the Common Berthing Mechanism's contact models and berthing scenario:
cbm_active.toml (the active half, ACBM), cbm_passive.toml (the passive half, PCBM), cbm_hook.toml
(one capture latch's hook) and ../cbm_berthing.toml. Run: python3 make_cbm.py (from this folder).

Public CBM descriptions give the ring (about 1.8 m across), the halves' masses, four capture
latches on the ACBM that reach out and pull fittings on the PCBM, ready-to-latch indicators
(three of four tripped before capture), coarse alignment guides, thermal standoffs and bumpers;
they give no dimensions of the parts. Every size, angle, stiffness and motor figure below is an
assumption of this model, chosen so that the parts do what the descriptions say.

Frames: the ACBM's origin at the centre of its face, z toward the arriving PCBM; azimuth phi
from x about z; e_r radial, e_t = z x e_r tangential. The PCBM's frame is its module's: origin at
the module's centre of mass, 3 m behind its face (z = -3 in its frame), axes those of the ACBM
when aligned; its face faces -z.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FACE = -3.0  # the PCBM face in the PCBM's frame, m

# The latch linkage (latch plane: X radial, Y axial; pivots on the ACBM face ring).
CRANK, COUPLER, ROCKER, GROUND = 0.05, 0.12, 0.07, 0.12
PIVOT_R, PIVOT_Z = 0.70, 0.0  # the hook's (rocker's) pivot
OPEN_DEG, CLOSED_DEG = 30.0, 205.0  # crank angles
ARM, CLAW = 0.17, 0.035  # hook arm length from the pivot, claw length, m
ARM_HALF, HOOK_HALF_WIDTH = 0.012, 0.03  # arm half thickness (in plane), half width (tangential)
CLOSED_ARM_DEG = 20.0  # the arm's elevation above the ACBM face at the closed stop
BAR_R, BAR_RADIUS, BAR_HALF = 0.80, 0.012, 0.05  # capture fitting bar: radius from the axis, its own, half length
MATED = 0.04  # the PCBM face's height above the ACBM face when mated (on the standoffs), m


# The steel faces' contact set (the ACBM's structure and the latches' hooks): stiff and damped
# on the surface, a volume law for deep overlaps, Coulomb friction, above the PCBM's set.
STEEL = """law = { k = 2e6, c = 2e4 }                # N/m, N·s/m
volume_law = { k = 1e10, c = 1e8 }       # N/m³, N·s/m³
friction = { model = "coulomb", mu = 0.2, v_star = 0.005 }
priority = 1"""

def freudenstein(t2):
    a, b, c, d = CRANK, COUPLER, ROCKER, GROUND
    k1, k2, k3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
    s, co = math.sin(t2), math.cos(t2)
    aa, bb, cc = co - k1 - k2 * co + k3, -2 * s, k1 - (k2 + 1) * co + k3
    return 2 * math.atan2(-bb - math.sqrt(bb * bb - 4 * aa * cc), 2 * aa)


def rot_z(phi, p):
    c, s = math.cos(phi), math.sin(phi)
    return [c * p[0] - s * p[1], s * p[0] + c * p[1], p[2]]


def box(center, half, axes):
    """Corners of a box: centre, half extents along the three (unit) axes."""
    out = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                out.append([center[i] + sx * half[0] * axes[0][i] + sy * half[1] * axes[1][i] + sz * half[2] * axes[2][i]
                            for i in range(3)])
    return out


def fmt(v):
    return "[" + ", ".join(f"{x:.6f}".rstrip("0").rstrip(".") if x != 0 else "0" for x in v) + "]"


def poly(name, verts):
    return f'[[object.groups.primitives]]\ntype = "polyhedron"\nname = "{name}"\nvertices = [{", ".join(fmt(v) for v in verts)}]\n\n'


def sphere(name, c, r):
    return f'[[object.groups.primitives]]\ntype = "sphere"\nname = "{name}"\ncenter = {fmt(c)}\nradius = {r}\n\n'


def group(name, contact, body):
    return f'[[object.groups]]\nname = "{name}"\ncontact = "{contact}"\n\n' + body


def radial_axes(phi):
    er = [math.cos(phi), math.sin(phi), 0.0]
    et = [-math.sin(phi), math.cos(phi), 0.0]
    return er, et, [0.0, 0.0, 1.0]


def active():
    guides, pads, bumpers, rtlis = "", "", "", ""
    for k in range(4):
        phi = math.radians(90 * k)
        er, et, ez = radial_axes(phi)
        # A coarse alignment guide: a petal whose inner face leans out from r = 0.90 at the face
        # to 0.95 at 0.12 m, 0.05 m thick, 0.20 m wide: a funnel for the PCBM's guide pins.
        pts = []
        for (r, z) in [(0.90, 0.0), (0.95, 0.0), (0.95, 0.12), (1.00, 0.12)]:
            for t in (-0.10, 0.10):
                pts.append([r * er[i] + t * et[i] + z * ez[i] for i in range(3)])
        guides += poly(f"guide_{k + 1}", pts)
        # Duckhead bumpers either side of the guide, under the PCBM's ring.
        for j, side in enumerate((-1, 1)):
            p = rot_z(phi + side * math.radians(12), [0.80, 0.0, 0.015])
            bumpers += sphere(f"bumper_{k + 1}{'ab'[j]}", p, 0.015)
        # A standoff landing pad at 65° past the guide.
        pp = math.radians(90 * k + 65)
        er2, et2, ez2 = radial_axes(pp)
        pads += poly(f"pad_{k + 1}", box([0.76 * er2[0], 0.76 * er2[1], -0.01], [0.04, 0.04, 0.01], [er2, et2, ez2]))
        # A ready-to-latch indicator: a plunger's ball on a post at 25° past the guide, its top
        # 0.115 m above the face.
        rtlis += sphere(f"rtli_{k + 1}", rot_z(math.radians(90 * k + 25), [0.78, 0.0, 0.10]), 0.015)
    head = f'''# The Common Berthing Mechanism's active half (ACBM), written by make_cbm.py: origin at the
# centre of its face, z toward the arriving passive half. Four coarse alignment guides (petals
# leaning outward: a funnel), eight duckhead bumpers, four landing pads for the PCBM's thermal
# standoffs and four ready-to-latch indicators (`rtli_…`: plungers the PCBM's striker plates
# press). The capture latches' hooks are cbm_hook.toml, placed by the scenario's latches.
name = "cbm_active"

[contact.steel]
{STEEL}

[contact.bumper]
law = {{ k = 2e5, c = 4e3 }}                # N/m, N·s/m: a duckhead bumper's spring
friction = {{ model = "coulomb", mu = 0.2, v_star = 0.005 }}
priority = 1

[contact.rtli]
law = {{ k = 50, c = 5 }}                   # N/m, N·s/m: the indicator's light plunger spring
priority = 1

[object]
bv = "aabb"

'''
    return head + group("guides", "steel", guides) + group("bumpers", "bumper", bumpers) \
        + group("standoff_pads", "steel", pads) + group("rtli", "rtli", rtlis)


def octagon_bar(center, axis, radius, half):
    """An octagonal prism along `axis` (unit), of circumradius `radius`."""
    # Two unit vectors across the axis.
    u = [0.0, 0.0, 1.0]
    w = [axis[1] * u[2] - axis[2] * u[1], axis[2] * u[0] - axis[0] * u[2], axis[0] * u[1] - axis[1] * u[0]]
    pts = []
    for end in (-half, half):
        for j in range(8):
            a = 2 * math.pi * j / 8 + math.pi / 8
            pts.append([center[i] + end * axis[i] + radius * (math.cos(a) * u[i] + math.sin(a) * w[i]) for i in range(3)])
    return pts


def passive():
    ring, strikers, standoffs, pins, fittings = "", "", "", "", ""
    # The bar's top under the arm's underside when the arm is 3° short of its closed stop with
    # the PCBM mated: the motors stall there, pressing the PCBM onto its standoffs.
    e = math.radians(CLOSED_ARM_DEG + 3.0)
    top = (BAR_R - PIVOT_R) * math.tan(e) - ARM_HALF / math.cos(e)
    bar_z = top - BAR_RADIUS * math.cos(math.pi / 8) - MATED
    for k in range(4):
        phi = math.radians(90 * k)
        er, et, ez = radial_axes(phi)
        ring += poly(f"ring_{k + 1}", box([0.79 * er[0], 0.79 * er[1], FACE - 0.005], [0.05, 0.25, 0.005], [er, et, ez]))
        pins += sphere(f"guide_pin_{k + 1}", [0.86 * er[0], 0.86 * er[1], FACE - 0.06], 0.03)
        ps = math.radians(90 * k + 25)
        er2, et2, ez2 = radial_axes(ps)
        # A striker plate proud of the face by 5 mm, backed by the structure behind it (a deep
        # block, so that an indicator's plunger stays under it however far it is pressed).
        strikers += poly(f"striker_{k + 1}",
                         box([0.78 * er2[0], 0.78 * er2[1], FACE - 0.005 + 0.05], [0.03, 0.03, 0.05], [er2, et2, ez2]))
        po = math.radians(90 * k + 65)
        standoffs += sphere(f"standoff_{k + 1}", [0.76 * math.cos(po), 0.76 * math.sin(po), FACE - 0.02], 0.02)
        pf = math.radians(90 * k + 45)
        er3, et3, _ = radial_axes(pf)
        c = [BAR_R * er3[0], BAR_R * er3[1], FACE + bar_z]
        fittings += poly(f"fitting_{k + 1}", octagon_bar(c, et3, BAR_RADIUS, BAR_HALF))
    head = f'''# The Common Berthing Mechanism's passive half (PCBM) on its module, written by make_cbm.py:
# origin at the module's centre of mass, its face 3 m out along -z (toward the ACBM), axes the
# ACBM's when aligned. Its ring under the bumpers, four striker plates over the ACBM's
# ready-to-latch indicators, four thermal standoffs that land on the ACBM's pads when mated
# (the face 0.04 m above the ACBM's), four guide pins for the ACBM's petals and four capture
# fittings (bars across the latches' planes) that the hooks pull.
name = "cbm_passive"

[contact.passive]
law = {{ k = 2e6, c = 2e4 }}                # N/m, N·s/m (the ACBM's sets act: their priority)
volume_law = {{ k = 1e10, c = 1e8 }}       # N/m³, N·s/m³
friction = {{ model = "coulomb", mu = 0.2, v_star = 0.005 }}

[object]
bv = "obb"
contact = "passive"

'''
    return head + group("ring", "passive", ring) + group("strikers", "passive", strikers) \
        + group("standoffs", "passive", standoffs) + group("guide_pins", "passive", pins) \
        + group("fittings", "passive", fittings)


def hook():
    """The hook in the rocker's frame (x along the rocker, z the latch axis e_t), drawn at the
    closed stop: the arm CLOSED_ARM_DEG above the face pointing outward, the claw down at its
    tip."""
    t4 = freudenstein(math.radians(CLOSED_DEG))
    # Latch plane at azimuth 0: e_r = x, e_t = y (the axis), e_z = z; e1 = x, e2 = y x x = -z.
    r = [math.cos(t4), 0.0, -math.sin(t4)]
    n = [0.0, 1.0, 0.0]
    y = [n[1] * r[2] - n[2] * r[1], n[2] * r[0] - n[0] * r[2], n[0] * r[1] - n[1] * r[0]]
    to_hook = lambda p: [sum(p[i] * ax[i] for i in range(3)) for ax in (r, y, n)]  # noqa: E731
    e = math.radians(CLOSED_ARM_DEG)
    u = [math.cos(e), 0.0, math.sin(e)]  # the arm, latch-plane coordinates relative to the pivot
    down = [math.sin(e), 0.0, -math.cos(e)]
    arm = box([0.5 * (0.02 + ARM) * u[i] for i in range(3)], [0.5 * (ARM - 0.02), HOOK_HALF_WIDTH, ARM_HALF],
              [u, n, [-down[i] for i in range(3)]])
    tip = [ARM * u[i] for i in range(3)]
    claw = box([tip[i] + 0.5 * CLAW * down[i] for i in range(3)], [ARM_HALF, HOOK_HALF_WIDTH, 0.5 * CLAW],
               [u, n, [-down[i] for i in range(3)]])
    arm, claw = [to_hook(p) for p in arm], [to_hook(p) for p in claw]
    return f'''# A CBM capture latch's hook, written by make_cbm.py, in its rocker's frame (origin at the
# rocker's pivot, x along the rocker toward the coupler's pin, z the latch's axis): a bell
# crank's arm ({ARM} m from the pivot) and the claw at its tip. Drawn at the closed stop, the arm
# {CLOSED_ARM_DEG}° above the ACBM's face pointing outward and the claw down.
name = "cbm_hook"

[contact.hook]
{STEEL}

[object]
bv = "obb"
contact = "hook"

[[object.primitives]]
type = "polyhedron"
name = "arm"
vertices = [{", ".join(fmt(v) for v in arm)}]

[[object.primitives]]
type = "polyhedron"
name = "claw"
vertices = [{", ".join(fmt(v) for v in claw)}]
'''


def latches():
    out = ""
    for k in range(4):
        phi = math.radians(45 + 90 * k)
        er, et, _ = radial_axes(phi)
        pivot = [PIVOT_R * er[0], PIVOT_R * er[1], PIVOT_Z]
        crank = [(PIVOT_R - GROUND) * er[0], (PIVOT_R - GROUND) * er[1], PIVOT_Z]
        out += f'''[[mechanism.berthing.latches]]
name = "latch_{k + 1}"
hook = "models/cbm_hook.toml"
crank_pivot = {fmt(crank)}        # m, ACBM frame
pivot = {fmt(pivot)}              # the hook's pivot
axis = {fmt(et)}                  # tangential: the latch swings in its radial plane
crank = {CRANK}
coupler = {COUPLER}
rocker = {ROCKER}
open_deg = {OPEN_DEG}
closed_deg = {CLOSED_DEG}
motor = {{ stall = 20.0, no_load_speed = 0.3, inertia = 0.5 }}   # N·m, rad/s, kg·m² at the crank

'''
    return out


SCENARIO = '''# The Common Berthing Mechanism (CBM) berthing a 12 t module, written by
# models/make_cbm.py (the sizes are its assumptions; docs/contact_engine.md, "The Common
# Berthing Mechanism"). The passive half (PCBM) drifts in at 3 mm/s from 21 cm out, free
# (the arm gone limp); its guide pins enter the active half's petals, its striker plates press
# the ready-to-latch indicators, and when three of four have tripped the four capture latches'
# motors drive their four-bar linkages: each hook swings over its capture fitting and pulls
# the PCBM onto its thermal standoffs, until the motors stall at their preload: captured, then
# berthed at rest.
name = "cbm_berthing"
description = "Common Berthing Mechanism: guides, ready-to-latch indicators, four motor-driven four-bar capture latches"
kind = "mechanism"

[simulation]
duration = 100.0         # s
integrator = "rk4"
dt = 1e-3                # s
output_interval = 0.02   # s

[gravity]
type = "none"

[mechanism]
pairs = [["pcbm", "acbm"]]

[[mechanism.bodies]]
name = "acbm"
model = "models/cbm_active.toml"
fixed = true

# The module: 12 t, a 4.2 m x 6 m cylinder's inertia; its face 0.25 m above the ACBM's (the
# mated height is 0.04 m; its guide pins 6 cm above the petals' funnel, its fittings clear of
# the open hooks), drifting in at 3 mm/s.
[[mechanism.bodies]]
name = "pcbm"
model = "models/cbm_passive.toml"
mass = 12000.0                          # kg
inertia = [49230.0, 49230.0, 26460.0]   # kg·m²
position = [0.0, 0.0, 3.25]             # m: its face at 0.25 m
velocity = [0.0, 0.0, -0.003]           # m/s

[mechanism.berthing]
carrier = "acbm"
target = "pcbm"
rtli_trip = 0.005        # m: the indicator's plunger travel to its switch
rtli_required = 3
axis = [0.0, 0.0, 1.0]

# A campaign over lateral misalignment: `tumble mc scenarios/contact/cbm_berthing.toml --runs 64`
# draws the capture envelope (plots/capture_envelope).
[dispersions]
"mechanism.bodies.1.position.0" = { uniform = [-0.12, 0.12] }   # m
"mechanism.bodies.1.position.1" = { uniform = [-0.12, 0.12] }   # m

'''

if __name__ == "__main__":
    for name, text in [("cbm_active.toml", active()), ("cbm_passive.toml", passive()), ("cbm_hook.toml", hook())]:
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
    with open(os.path.join(HERE, "..", "cbm_berthing.toml"), "w") as f:
        f.write(SCENARIO + latches())
