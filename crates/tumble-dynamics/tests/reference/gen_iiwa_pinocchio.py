#!/usr/bin/env python3
"""Reference dynamics of the KUKA iiwa (../shared/data/robots/kuka_iiwa_bullet3.urdf) and of
mixed_arm.urdf (next to this script) from Pinocchio, for tests/iiwa_pinocchio.rs.

    pip install pin==4.1.0
    python3 crates/tumble-dynamics/tests/reference/gen_iiwa_pinocchio.py

For fixed-base configurations (q, qd) with gravity (0, 0, -9.81) m/s²: the mass matrix (CRBA,
symmetrised), the bias C(q, qd) qd + g(q) (`nonLinearEffects`), forward dynamics under a torque
(ABA), and the Jacobian of the last link's frame origin in LOCAL_WORLD_ALIGNED (rows: linear then
angular velocity, world axes). Written as JSON with 17 significant digits. Pinocchio stores a
continuous joint's angle as (cos, sin); the files give the angle.
"""
import json
import pathlib

import numpy as np
import pinocchio as pin

HERE = pathlib.Path(__file__).resolve().parent
URDF = HERE / "../../../../../shared/data/robots/kuka_iiwa_bullet3.urdf"



def generate(urdf, tip_name, out, seed):
    model = pin.buildModelFromUrdf(str(urdf))
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    data = model.createData()
    tip = model.getFrameId(tip_name)
    # Continuous joints: nq = 2 (cos, sin) in Pinocchio, one angle here.
    continuous = [j.nq == 2 for j in model.joints[1:]]
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(6):
        angles = rng.uniform(-1.5, 1.5, model.nv) if k else np.zeros(model.nv)
        q = np.concatenate([[np.cos(a), np.sin(a)] if c else [a] for a, c in zip(angles, continuous)])
        qd = rng.uniform(-1.0, 1.0, model.nv) if k > 1 else np.zeros(model.nv)
        tau = rng.uniform(-5.0, 5.0, model.nv)
        m = pin.crba(model, data, q)
        m = np.triu(m) + np.triu(m, 1).T
        bias = pin.nonLinearEffects(model, data, q, qd)
        qdd = pin.aba(model, data, q, qd, tau)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        jac = pin.getFrameJacobian(model, data, tip, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        cases.append({
            "q": angles.tolist(), "qd": qd.tolist(), "tau": tau.tolist(),
            "mass_matrix": m.tolist(), "bias": bias.tolist(), "qdd": qdd.tolist(), "jacobian": jac.tolist(),
        })
    doc = {"generator": "pinocchio " + pin.__version__, "urdf": urdf.name, "gravity": [0.0, 0.0, -9.81], "cases": cases}
    (HERE / out).write_text(json.dumps(doc, indent=1, default=float) + "\n")
    print(f"{out}: {len(cases)} cases")


generate(URDF, "lbr_iiwa_link_7", "iiwa_pinocchio.json", 20261121)
generate(HERE / "mixed_arm.urdf", "tool", "mixed_arm_pinocchio.json", 7)
