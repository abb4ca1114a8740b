#!/usr/bin/env bash
# The secret-taint test (ctgrind, docs/security.md section 7): native/examples/ctgrind.rs
# under valgrind's memcheck, which reports every branch and memory address that depends on a
# secret input, apart from the values the library declassifies (native/src/ct.rs). Runs on
# portable and avx2 (valgrind has no AVX-512; there is no aarch64 valgrind under QEMU), after a
# canary that must be reported. Needs valgrind (with its headers) and libclang (for the
# crabgrind crate's bindings). Usage: native/ctgrind.sh [ROUNDS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "ctgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
rounds=${1:-2}
# Its own target folder: line tables in the release build, so reports name file and line,
# without rebuilding the main release build.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/ctgrind
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
cargo build -q --release --locked -p nexusq-native --example ctgrind --features ct-testing
bin=$CARGO_TARGET_DIR/release/examples/ctgrind
# Smaller superblocks: the unrolled SIMD code overflows VEX's scratch space otherwise.
vg=(valgrind -q --error-exitcode=99 --leak-check=no --vex-guest-max-insns=20)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"${vg[@]}" "$bin" canary >"$log" 2>&1 || status=$?
if [ "$status" -ne 99 ] || ! grep -q "depends on uninitialised" "$log"; then
    cat "$log" >&2
    echo "ctgrind.sh: the canary's branch on a secret was not reported (exit $status): memcheck is not seeing the marks, so a clean run would mean nothing" >&2
    exit 1
fi
echo "ctgrind canary: reported, as it must be"
for imp in portable avx2; do
    if ! "$bin" "$imp" 0 >/dev/null 2>&1; then
        echo "ctgrind $imp: not available on this CPU, skipped"
        continue
    fi
    start=$SECONDS
    status=0
    "${vg[@]}" "$bin" "$imp" "$rounds" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        echo "ctgrind.sh: $imp: memcheck found secret-dependent branches or addresses (exit $status), above" >&2
        exit 1
    fi
    echo "ctgrind $imp: $rounds rounds of ML-KEM-768/1024 keygen, encaps, decaps (valid and invalid), ML-DSA-65 keygen and sign, SLH-DSA-SHAKE-128f keygen and sign: no secret-dependent branch or address ($((SECONDS - start)) s)"
done
