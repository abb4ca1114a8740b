#!/usr/bin/env bash
# Run fuzz targets one after another: ./run.sh SECONDS [TARGET...] (default: every target);
# ./run.sh build only builds them all.
# New corpus entries go to a scratch directory outside the repository ($NEXUSQ_FUZZ_SCRATCH,
# else a fresh temporary one); corpus/<target> (the committed seeds) is only read. Crashes land
# in artifacts/<target>/. Needs cargo-fuzz; nightly for AddressSanitizer, or
# NEXUSQ_FUZZ_TOOLCHAIN=stable (or empty: the default cargo) NEXUSQ_FUZZ_SANITIZER=none
# (docs/robustness.md).
# Exits non-zero at the first target that fails.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:?usage: run.sh SECONDS|build [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(vault identity signature kem file_decrypt recovery_words native_mlkem native_mldsa native_slhdsa agent_protocol)
fi
toolchain=${NEXUSQ_FUZZ_TOOLCHAIN-nightly}
sanitizer=${NEXUSQ_FUZZ_SANITIZER:-address}
cargo=(cargo)
[ -n "$toolchain" ] && cargo+=("+$toolchain")

if [ "$seconds" = build ]; then
    exec nice -n 19 "${cargo[@]}" fuzz build --sanitizer "$sanitizer"
fi
if [ -n "${NEXUSQ_FUZZ_SCRATCH:-}" ]; then
    scratch=$NEXUSQ_FUZZ_SCRATCH
else
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
fi

for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t"
    echo "::: fuzz $t for $seconds s (${cargo[*]}, sanitizer $sanitizer; new entries in $scratch/$t)"
    # One process, one thread (libFuzzer's default); nice so others on the machine come first.
    nice -n 19 "${cargo[@]}" fuzz run --sanitizer "$sanitizer" "$t" "$scratch/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=60 -print_final_stats=1
done
