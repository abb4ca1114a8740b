#!/usr/bin/env bash
# aarch64 instructions per ML-KEM, ML-DSA-65 and SLH-DSA-SHAKE-128f operation under QEMU, for each nexusq-native implementation,
# on -cpu max (NEON + SHA-3) and -cpu cortex-a72 (NEON only). A proxy, not cycles: every
# instruction counts as one. Reference counts of other libraries: ../shared/tools/insncount.
# Needs: qemu-user (the static build cannot load plugins), gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross, and `rustup target add aarch64-unknown-linux-gnu`. Usage:
#   benches/insncount.sh            # N=20 operations per measurement, ML-KEM and ML-DSA
#   benches/insncount.sh mldsa      # only ML-DSA-65 (or: mlkem)
#   benches/insncount.sh slhdsa     # only SLH-DSA-SHAKE-128f, with RustCrypto's slh-dsa as the
#                                   # reference and the ratio to it (N_SLH=2 operations each:
#                                   # its counts do not depend on the input, and a RustCrypto
#                                   # signature takes about a minute under the plugin)
#   SLH_REF_MAX=K,S,V SLH_REF_A72=K,S,V benches/insncount.sh slhdsa
#                                   # reuses RustCrypto's counts (keygen, sign, verify per
#                                   # operation, from an earlier run) instead of measuring
#                                   # them again: they do not change with our code
# ML-DSA signing takes a varying number of attempts; its N signatures are of N different messages.
# `all` (the default) is ML-KEM and ML-DSA; SLH-DSA runs only when asked for.

set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
plugin=$target/insncount.so
qemu=$(command -v qemu-aarch64) || { echo "insncount.sh: needs qemu-aarch64 (apt-get install qemu-user)" >&2; exit 2; }
mkdir -p "$target"
cc -shared -fPIC -O2 -o "$plugin" ../shared/tools/insncount/insncount.c
cargo build -q --release --locked -p nexusq-native --example insncount --target aarch64-unknown-linux-gnu
bin=$target/aarch64-unknown-linux-gnu/release/examples/insncount
n=${N:-20}
which=${1:-all}
marked() {
    "$qemu" -d plugin -cpu "$1" -L /usr/aarch64-linux-gnu -plugin "$plugin" "$bin" "$2" "$3" "$4" "$5" 2>&1 |
        awk '/^marked:/ {print $2}'
}
per_op() { # cpu implementation set op [n]: instructions per operation
    local zero many count=${5:-$n}
    zero=$(marked "$1" "$2" "$3" "$4" 0)
    many=$(marked "$1" "$2" "$3" "$4" "$count")
    echo $(( (many - zero) / count ))
}
if [ "$which" = slhdsa ]; then
    n_slh=${N_SLH:-2}
    echo "| cpu | implementation | SLH-DSA-SHAKE-128f keygen | sign | verify | RustCrypto / this (keygen, sign, verify) |"
    echo "|---|---|---:|---:|---:|---|"
    for cpu in max cortex-a72; do
        declare -A ref=()
        reused=""
        [ "$cpu" = max ] && reused=${SLH_REF_MAX:-}
        [ "$cpu" = cortex-a72 ] && reused=${SLH_REF_A72:-}
        if [ -n "$reused" ]; then
            IFS=, read -r ref[keygen] ref[sign] ref[verify] <<<"$reused"
            note=" (reused, not measured in this run)"
        else
            for op in keygen sign verify; do
                ref[$op]=$(per_op "$cpu" rustcrypto slhdsa "$op" "$n_slh")
            done
            note=""
        fi
        echo "| $cpu | RustCrypto slh-dsa$note | ${ref[keygen]} | ${ref[sign]} | ${ref[verify]} | 1, 1, 1 |"
        for imp in portable neon neon-sha3; do
            [ "$cpu" = cortex-a72 ] && [ "$imp" = neon-sha3 ] && continue
            row="| $cpu | $imp |"
            ratios=""
            for op in keygen sign verify; do
                count=$(per_op "$cpu" "$imp" slhdsa "$op" "$n_slh")
                row="$row $count |"
                ratios="$ratios$(awk -v r="${ref[$op]}" -v c="$count" 'BEGIN { printf "%.2f", r / c }'), "
            done
            echo "$row ${ratios%, } |"
        done
    done
    exit 0
fi
if [ "$which" != mldsa ]; then
echo "| cpu | implementation | set | keygen | encaps | decaps |"
echo "|---|---|---|---:|---:|---:|"
for cpu in max cortex-a72; do
    for imp in portable neon neon-sha3; do
        [ "$cpu" = cortex-a72 ] && [ "$imp" = neon-sha3 ] && continue
        for set in 768 1024; do
            row="| $cpu | $imp | ML-KEM-$set |"
            for op in keygen encaps decaps; do
                row="$row $(per_op "$cpu" "$imp" "$set" "$op") |"
            done
            echo "$row"
        done
    done
done
fi
if [ "$which" != mlkem ]; then
echo
echo "| cpu | implementation | ML-DSA-65 keygen | sign | verify |"
echo "|---|---|---:|---:|---:|"
for cpu in max cortex-a72; do
    for imp in portable neon neon-sha3; do
        [ "$cpu" = cortex-a72 ] && [ "$imp" = neon-sha3 ] && continue
        row="| $cpu | $imp |"
        for op in keygen sign verify; do
            row="$row $(per_op "$cpu" "$imp" mldsa65 "$op") |"
        done
        echo "$row"
    done
done
fi
