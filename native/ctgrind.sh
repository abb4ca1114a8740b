#!/usr/bin/env bash
# The secret-taint test (ctgrind, docs/security.md section 7): native/examples/ctgrind.rs
# under valgrind's memcheck, which reports every branch and memory address that depends on a
# secret input, apart from the values the library declassifies (native/src/ct.rs). After a
# canary that must be reported, it runs every implementation valgrind can run:
#   native/ctgrind.sh [ROUNDS]            x86-64: portable and avx2 (valgrind has no AVX-512).
#                                         Needs valgrind (with its headers) and libclang (for
#                                         the crabgrind crate's bindings). CI runs this.
#   native/ctgrind.sh --aarch64 [ROUNDS]  aarch64 under QEMU, -cpu max and -cpu cortex-a72:
#                                         portable and neon, with Debian's arm64 valgrind run by
#                                         qemu-aarch64-static on a statically linked build
#                                         (valgrind 3.19 hides SHA-3, so neon-sha3 is not run).
#                                         Needs what .ci/run's QEMU leg installs, and
#                                         VALGRIND_ARM64 = the root of an unpacked valgrind
#                                         arm64 package: dpkg --add-architecture arm64;
#                                         apt-get update; apt-get download valgrind:arm64;
#                                         dpkg -x valgrind_*_arm64.deb DIR. CI runs
#                                         this too, with 2 rounds.
# ROUNDS defaults to 2.
set -euo pipefail
cd "$(dirname "$0")/.."
aarch64=no
if [ "${1:-}" = --aarch64 ]; then
    aarch64=yes
    shift
fi
rounds=${1:-2}
if [ $aarch64 = no ]; then
    command -v valgrind >/dev/null || { echo "ctgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
else
    command -v qemu-aarch64-static >/dev/null || { echo "ctgrind.sh: needs qemu-aarch64-static (apt-get install qemu-user-static)" >&2; exit 2; }
    vg_root=${VALGRIND_ARM64:?ctgrind.sh --aarch64: set VALGRIND_ARM64 to an unpacked valgrind arm64 package (see the top of this script)}
    [ -x "$vg_root/usr/libexec/valgrind/memcheck-arm64-linux" ] ||
        { echo "ctgrind.sh: no usr/libexec/valgrind/memcheck-arm64-linux under $vg_root" >&2; exit 2; }
    vg_root=$(cd "$vg_root" && pwd)
fi
# Line tables in the release build, so reports name file and line; each build has a target
# folder of its own (below), so the main release build is not rebuilt.
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# check LABEL IMP LOG STATUS SECONDS: what one implementation's run under memcheck said.
check() {
    local label=$1 imp=$2 log=$3 status=$4 took=$5
    if grep -q "is not available" "$log"; then
        echo "ctgrind $label $imp: not available here (or under valgrind), skipped"
        return 0
    fi
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        echo "ctgrind.sh: $label $imp: memcheck found secret-dependent branches or addresses (exit $status), above" >&2
        return 1
    fi
    echo "ctgrind $label $imp: $rounds rounds of ML-KEM-768/1024 keygen, encaps, decaps (valid and invalid), ML-DSA-65 keygen and sign, SLH-DSA-SHAKE-128f keygen and sign: no secret-dependent branch or address ($took s)"
}

# run LABEL COMMAND...: the canary must be reported, then each implementation is started; finish
# waits for them all and checks each. valgrind runs one thread at a time, so implementations
# (and CPU models) run side by side, at most $jobs (default: the number of CPUs) at once.
pending=()
run() {
    local label=$1 status imp tag
    shift
    tag=${label// /_}
    status=0
    "$@" canary >"$logs/$tag-canary" 2>&1 || status=$?
    if [ "$status" -ne 99 ] || ! grep -q "depends on uninitialised" "$logs/$tag-canary"; then
        cat "$logs/$tag-canary" >&2
        echo "ctgrind.sh: $label: the canary's branch on a secret was not reported (exit $status): memcheck is not seeing the marks, so a clean run would mean nothing" >&2
        exit 1
    fi
    echo "ctgrind $label canary: reported, as it must be"
    for imp in "${imps[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        (
            begin=$SECONDS
            st=0
            "$@" "$imp" "$rounds" >"$logs/$tag-$imp" 2>&1 || st=$?
            echo "$st $((SECONDS - begin))" >"$logs/$tag-$imp.status"
        ) &
        pending+=("$label|$imp|$tag")
    done
}
finish() {
    local entry label imp tag status took failed=0
    wait
    for entry in "${pending[@]}"; do
        IFS='|' read -r label imp tag <<<"$entry"
        read -r status took <"$logs/$tag-$imp.status"
        check "$label" "$imp" "$logs/$tag-$imp" "$status" "$took" || failed=1
    done
    [ $failed = 0 ] || exit 1
}
jobs=${CTGRIND_JOBS:-$(nproc 2>/dev/null || echo 2)}

# Smaller superblocks: the unrolled SIMD code overflows VEX's scratch space otherwise.
vg_opts=(-q --error-exitcode=99 --leak-check=no --vex-guest-max-insns=20)
if [ $aarch64 = no ]; then
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/ctgrind
    cargo build -q --release --locked -p nexusq-native --example ctgrind --features ct-testing
    imps=(portable avx2)
    run x86-64 valgrind "${vg_opts[@]}" "$CARGO_TARGET_DIR/release/examples/ctgrind"
    finish
else
    # Statically linked: valgrind needs an unstripped dynamic loader otherwise, which the cross
    # libc does not ship. The static C library and Rust's start-up give memcheck a few false
    # positives of their own, outside nexusq-native: native/ctgrind-static.supp lists them.
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/ctgrind-aarch64
    RUSTFLAGS="-C target-feature=+crt-static" cargo build -q --release --locked -p nexusq-native \
        --example ctgrind --features ct-testing --target aarch64-unknown-linux-gnu
    bin=$CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release/examples/ctgrind
    imps=(portable neon neon-sha3)
    for cpu in max cortex-a72; do
        run "aarch64 -cpu $cpu" env VALGRIND_LIB="$vg_root/usr/libexec/valgrind" \
            VALGRIND_LAUNCHER="$vg_root/usr/bin/valgrind.bin" \
            qemu-aarch64-static -cpu "$cpu" -L /usr/aarch64-linux-gnu \
            "$vg_root/usr/libexec/valgrind/memcheck-arm64-linux" "${vg_opts[@]}" \
            --suppressions=native/ctgrind-static.supp "$bin"
    done
    finish
fi
