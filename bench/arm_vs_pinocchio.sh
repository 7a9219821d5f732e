#!/bin/sh
# Forward dynamics (ABA), inverse dynamics (RNEA) and mass matrix (CRBA) of the KUKA iiwa and a
# 20-link chain, Tumble against Pinocchio's C++ (not its Python binding, whose call overhead
# would flatter Tumble), side by side in one run. Needs: pip install pin==4.1.0, and Eigen's headers: the
# Debian packages libeigen3-dev and liburdfdom-headers-dev, or the same headers given in
# CPPFLAGS (e.g. `-I<dir>/include/eigen3 -I<dir>/include/urdfdom_headers` of the cmeel-eigen
# and cmeel-urdfdom-headers wheels, unzipped).
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
# The iiwa, then a 20-link chain (bench/chain_urdf.py).
python3 "$ROOT/bench/chain_urdf.py" 20 > "$OUT/chain20.urdf"
for U in "$URDF" "$OUT/chain20.urdf"; do
  "$ROOT/target/release/tumble" arm bench "$U" --calls 200000
  "$OUT/pin" "$U"
done
