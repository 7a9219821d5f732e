"""Writes a serial chain of N revolute links as URDF (default 20): alternating z, y, x axes,
tilted joint frames, 2 kg links. The arm benchmark's second case (bench/arm_vs_pinocchio.sh).

    python3 bench/chain_urdf.py 20 > /tmp/chain20.urdf
"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
axes = ["0 0 1", "0 1 0", "1 0 0"]
out = [f'<?xml version="1.0"?>\n<robot name="chain{n}">', '  <link name="base"/>']
for k in range(n):
    out.append(
        f'  <link name="l{k}"><inertial><origin xyz="0.01 -0.02 0.15" rpy="0 0 0"/>'
        f'<mass value="{2.0 - 0.05 * k:.2f}"/>'
        '<inertia ixx="0.03" ixy="0" ixz="0" iyy="0.04" iyz="0" izz="0.02"/></inertial></link>'
    )
    parent = "base" if k == 0 else f"l{k - 1}"
    out.append(
        f'  <joint name="j{k}" type="revolute"><parent link="{parent}"/><child link="l{k}"/>'
        f'<origin xyz="0.05 {0.02 * (k % 3):.2f} 0.3" rpy="0.1 -0.2 0.3"/><axis xyz="{axes[k % 3]}"/>'
        '<limit lower="-3" upper="3" effort="100" velocity="2"/></joint>'
    )
out.append("</robot>")
print("\n".join(out))
