#!/bin/sh
# Forward dynamics (ABA), inverse dynamics (RNEA) and mass matrix (CRBA) of the KUKA iiwa,
# Tumble against Pinocchio's C++ (not its Python binding, whose call overhead would flatter
# Tumble), side by side in one run. Needs: pip install pin==4.1.0, and the Debian packages
# libeigen3-dev and liburdfdom-headers-dev for Pinocchio's headers.
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
  -I"$P/include" -I/usr/include/eigen3 "$ROOT/bench/pinocchio_dynamics.cpp" -o "$OUT/pin" \
  -L"$P/lib" -lpinocchio_parsers -lpinocchio_default -lurdfdom_model -lconsole_bridge \
  -lboost_filesystem -lboost_serialization -Wl,-rpath,"$P/lib"
(cd "$ROOT" && cargo build --release -q)
"$ROOT/target/release/tumble" arm bench "$URDF" --calls 200000
"$OUT/pin" "$URDF"
