#!/bin/sh
# Forward dynamics (ABA), inverse dynamics (RNEA) and mass matrix (CRBA) of the KUKA iiwa, a
# 20-link chain and, where the example-robot-data wheel is installed, arms the iiwa does not
# stand for (UR5, Franka Panda, Kinova Jaco, xArm7, Unitree Z1, SO-100: fixed flanges, palms and
# fingers, prismatic fingers, other axes), Tumble against Pinocchio's C++ (not its Python
# binding, whose call overhead would flatter Tumble), side by side in one run, one line of
# ratios (Tumble's time over Pinocchio's) per arm at the end. Needs: pip install pin==4.1.0
# (and example-robot-data==6.0.0 for the other arms), and Eigen's headers: the Debian packages
# libeigen3-dev and liburdfdom-headers-dev, or the same headers given in CPPFLAGS (e.g.
# `-I<dir>/include/eigen3 -I<dir>/include/urdfdom_headers` of the cmeel-eigen and
# cmeel-urdfdom-headers wheels, unzipped).
#
#     sh bench/arm_vs_pinocchio.sh
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
URDF="$ROOT/../shared/data/robots/kuka_iiwa_bullet3.urdf"
P=$(python3 -c "import cmeel, os; print(os.path.join(os.path.dirname(cmeel.__file__), '..', 'cmeel.prefix'))")
OUT=$(mktemp -d)
g++ -O3 -DNDEBUG -std=c++17 \
  -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 \
  -DBOOST_FUSION_INVOKE_MAX_ARITY=12 -DPINOCCHIO_WITH_URDFDOM -DPINOCCHIO_URDFDOM_HEADERS_MAJOR_VERSION=3 \
  -DPINOCCHIO_URDFDOM_HEADERS_MINOR_VERSION=0 -DPINOCCHIO_URDFDOM_HEADERS_PATCH_VERSION=0 \
  -I"$P/include" -I/usr/include/eigen3 $CPPFLAGS "$ROOT/bench/pinocchio_dynamics.cpp" -o "$OUT/pin" \
  -L"$P/lib" -lpinocchio_parsers -lpinocchio_default -lurdfdom_model -lconsole_bridge \
  -lboost_filesystem -lboost_serialization -Wl,-rpath,"$P/lib"
(cd "$ROOT" && cargo build --release -q)
# The iiwa, a 20-link chain (bench/chain_urdf.py), then the other arms where installed.
python3 "$ROOT/bench/chain_urdf.py" 20 > "$OUT/chain20.urdf"
R="$P/share/example-robot-data/robots"
ARMS="$URDF $OUT/chain20.urdf"
for A in ur_description/urdf/ur5_robot.urdf panda_description/urdf/panda.urdf kinova_description/robots/kinova.urdf \
  xarm_description/urdf/xarm7.urdf z1_description/urdf/z1.urdf so_arm_description/urdf/so100.urdf; do
  if [ -f "$R/$A" ]; then ARMS="$ARMS $R/$A"; fi
done
for U in $ARMS; do
  T=$("$ROOT/target/release/tumble" arm bench "$U" --calls 200000)
  PIN=$("$OUT/pin" "$U")
  echo "$T"
  echo "$PIN"
  echo "$(basename "$U") $(echo "$T" | grep -E 'ABA\)|RNEA\)|CRBA\)' | awk '{print $(NF-1)}' | tr '\n' ' ')$(echo "$PIN" | awk '{print $4, $7, $10}')" >> "$OUT/ratios"
done
echo
echo "Tumble's time over Pinocchio's (below 1: Tumble faster)"
awk '{printf "%-24s ABA %.3f/%.3f = %.2f   RNEA %.3f/%.3f = %.2f   CRBA %.3f/%.3f = %.2f\n", $1, $2, $5, $2/$5, $3, $6, $3/$6, $4, $7, $4/$7}' "$OUT/ratios"
