#!/usr/bin/env bash
# `nexusq rotate` as a whole process with the default KDF (Argon2id 64 MiB, t = 3), on the
# default backend and with --backend native, in alternating runs (the order swapped every
# round) from one vault that is restored before each run. Prints the median and nearest-rank
# p95 wall time per backend in ms, and their ratio. The machine should be quiet: say its load.
#   benches/rotate_backends.sh            # RUNS=15 rounds
#   BIN=path/to/nexusq benches/rotate_backends.sh   # time that binary, build nothing
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-15}
if [ -n "${BIN:-}" ]; then
    bin=$(realpath "$BIN")
else
    cargo build -q --release --locked --bin nexusq
    bin=$PWD/${CARGO_TARGET_DIR:-target}/release/nexusq
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(umask 077 && printf 'rotate benchmark password\n' >"$dir/pw")
"$bin" --vault "$dir/v.nxq" init --password-file "$dir/pw" --revocation-out "$dir/rev.asc" \
    >/dev/null 2>&1
cp "$dir/v.nxq" "$dir/pristine.nxq"

one() { # backend: microseconds of one rotate
    cp "$dir/pristine.nxq" "$dir/v.nxq"
    # $EPOCHREALTIME, not $(date): two process spawns would add milliseconds to each sample.
    local t0 t1
    t0=${EPOCHREALTIME/./}
    "$bin" --vault "$dir/v.nxq" --backend "$1" rotate --password-file "$dir/pw" >/dev/null 2>&1
    t1=${EPOCHREALTIME/./}
    echo "$1 $((t1 - t0))"
}
one rustcrypto >/dev/null
one native >/dev/null
for i in $(seq "$runs"); do
    if [ $((i % 2)) -eq 0 ]; then one rustcrypto; one native; else one native; one rustcrypto; fi
done | sort -k1,1 -k2,2n | awk '
    { t[$1, ++n[$1]] = $2 }
    END {
        for (b in n) {
            c = n[b]; med = (c % 2) ? t[b, (c + 1) / 2] : (t[b, c / 2] + t[b, c / 2 + 1]) / 2
            p = int(0.95 * c); if (p < 0.95 * c) p++
            m[b] = med; q[b] = t[b, p]
            printf "%-10s median %8.1f ms  p95 %8.1f ms  (%d runs)\n", b, med / 1000, t[b, p] / 1000, c
        }
        printf "native / rustcrypto: median %.3f, p95 %.3f\n", m["native"] / m["rustcrypto"], q["native"] / q["rustcrypto"]
    }'
