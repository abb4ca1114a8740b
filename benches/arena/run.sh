#!/usr/bin/env bash
# Runs the arena twice and prints both tables and a comparison:
#   1. as users get it: `cargo run --release`, no -C target-cpu, SIMD picked at run time;
#   2. built with -C target-cpu=x86-64-v3 (AVX2 everywhere at compile time), in its own target dir.
# The point: the first build's nexusq-native should be within a few percent of the second's.
# Arguments are passed to both runs (e.g. --samples 20 --filter 768). Each run prints its tables
# on stderr; its evidence (JSON lines, docs/evidence.md) is kept in $ARENA_OUT (default:
# target/run/), ready for `nexusq report`.
set -euo pipefail
cd "$(dirname "$0")"
if [ "$(uname -m)" != x86_64 ]; then
    echo "run.sh compares x86-64 builds; on $(uname -m) use: cargo run --release -- --json" >&2
    exit 2
fi
target=${CARGO_TARGET_DIR:-$PWD/target}
out=${ARENA_OUT:-$target/run}
mkdir -p "$out"

echo "== 1. default build (run-time SIMD selection): cargo run --release -- --json $*"
env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS CARGO_TARGET_DIR="$target" \
    cargo run --release -q -- --json "$@" >"$out/default.jsonl"

echo
echo "== 2. RUSTFLAGS=\"-C target-cpu=x86-64-v3\" build (target dir $target/x86-64-v3)"
env -u CARGO_ENCODED_RUSTFLAGS RUSTFLAGS="-C target-cpu=x86-64-v3" \
    CARGO_TARGET_DIR="$target/x86-64-v3" \
    cargo run --release -q -- --json "$@" >"$out/x86-64-v3.jsonl"

echo
echo "== default build / x86-64-v3 build (1.00 = same speed; above 1 = default build slower)"
"$target/release/nexusq-arena" --compare "$out/default.jsonl" "$out/x86-64-v3.jsonl"
echo
echo "JSON lines: $out/default.jsonl $out/x86-64-v3.jsonl"
