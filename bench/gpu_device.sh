#!/bin/sh
# The GPU backend's device check in one call: its parity tests against the CPU engine and its
# throughput at 10^3 to 10^6 runs, on a machine that has a GPU but no Rust toolchain, no
# registry and no network (docs/gpu.md, "Measuring on a GPU").
#
# Here (with the toolchain), once:
#
#     sh bench/gpu_device.sh prepare .gpu
#
# builds the release test binaries of tumble-gpu and the `throughput` example, strips them and
# packs them (xz) into .gpu/bin.tar.xz, with the 67P shape model the shape-model tests read
# (.gpu/shared) and Debian's Vulkan loader packages (.gpu/gl/*.deb). It prints its size (the
# device tool carries up to 64 MB with the working tree; .gpu is git-ignored, so name it in
# `carry`).
#
# There (as root, in the repository's root):
#
#     sh bench/gpu_device.sh run .gpu "$OUT"
#
# installs the loader where none is, links the paths the binaries were built with (the
# repository and ../shared) to the ones there, runs every parity test binary (stopping at the
# first failure) and then the throughput tables: `throughput 1000,10000,100000,1000000 20000000
# 2000` for the comet drop, and `1000,10000,100000 5000000 300` for the 67P hopper (terrain,
# boulders, its wheel) and the Phobos cubes, writing $OUT/gpu_device.txt: the adapter, each
# test's result, and the tables. Sized for well under ten minutes on an H100 (the tests about
# 1 min; the comet's GPU batches 42 s there at commit 77a7a7a, plus the CPU engine's 2,000-run
# reference on each batch; the smaller tables about a minute each). `run` also works here on
# Mesa's lavapipe, where the tables take hours: pass a smaller table as a third argument (used
# for all three), e.g. `sh bench/gpu_device.sh run .gpu out "1000 20000 200"`.
set -eu

mode=${1:-}
dir=${2:-.gpu}

case "$mode" in
prepare)
    mkdir -p "$dir/stage" "$dir/gl" "$dir/shared/data/shapes"
    # Test binaries as cargo names them (the library's unit tests, one per test file), then the
    # example.
    cargo test --release -p tumble-gpu --no-run --message-format=json 2>/dev/null |
        python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["executable"])
' >"$dir/tests.txt"
    cargo build --release -p tumble-gpu --example throughput
    while read -r name exe; do cp "$exe" "$dir/stage/$name"; done <"$dir/tests.txt"
    cp target/release/examples/throughput "$dir/stage/throughput"
    strip "$dir"/stage/*
    tar -C "$dir/stage" -cJf "$dir/bin.tar.xz" .
    rm -r "$dir/stage"
    # Where the binaries look for the repository and ../shared (their CARGO_MANIFEST_DIR).
    pwd >"$dir/built_at"
    cp ../shared/data/shapes/67p_sbgat_lowres.obj "$dir/shared/data/shapes/"
    # The throughput tables read the scenarios from the repository (which travels) and 67P.
    (cd "$dir/gl" && apt-get download libvulkan1 libglvnd0 >/dev/null)
    du -sh "$dir"
    ;;
run)
    out=${3:?"usage: gpu_device.sh run DIR OUT [\"BATCHES STEPS CPU_RUNS\"]"}
    table=${4:-}
    [ -f "$dir/bin.tar.xz" ] || { echo "$dir/bin.tar.xz: missing; run \`prepare\` first" >&2; exit 2; }
    dir=$(cd "$dir" && pwd) # absolute: the links below point into it
    mkdir -p "$out"
    report="$out/gpu_device.txt"
    if ! ldconfig -p 2>/dev/null | grep -q libvulkan; then
        for f in "$dir"/gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
    built=$(cat "$dir/built_at")
    here=$(pwd)
    if [ "$built" != "$here" ] && [ ! -e "$built" ]; then
        mkdir -p "$(dirname "$built")"
        ln -s "$here" "$built"
    fi
    if [ ! -e "$(dirname "$built")/shared/data" ]; then
        mkdir -p "$(dirname "$built")"
        ln -sfn "$dir/shared" "$(dirname "$built")/shared"
    fi
    bin=$(mktemp -d)
    tar -C "$bin" -xJf "$dir/bin.tar.xz"
    {
        echo "# gpu_device.sh run, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -m), $(nproc) CPU cores"
        command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    } >"$report"
    status=0
    while read -r name _; do
        echo "## test $name" >>"$report"
        if ! "$bin/$name" --test-threads 1 >>"$report" 2>&1; then
            echo "FAILED: $name" >>"$report"
            status=1
            break
        fi
    done <"$dir/tests.txt"
    for case in "comet_drop 1000,10000,100000,1000000 20000000 2000" "hopper_67p 1000,10000,100000 5000000 300" \
        "cube_phobos 1000,10000,100000 5000000 300"; do
        [ "$status" = 0 ] || break
        # shellcheck disable=SC2086 # a case and a table are words
        set -- $case
        scenario=$1
        shift
        # shellcheck disable=SC2086
        [ -n "$table" ] && set -- $table
        echo "## throughput $scenario $*" >>"$report"
        "$bin/throughput" "$@" "scenarios/lander/$scenario.toml" >>"$report" 2>&1 || status=1
    done
    grep -E "^(#|device|test result|FAILED|\|)" "$report" || true
    exit "$status"
    ;;
*)
    echo "usage: sh bench/gpu_device.sh prepare DIR | run DIR OUT [\"BATCHES STEPS CPU_RUNS\"]" >&2
    exit 2
    ;;
esac
