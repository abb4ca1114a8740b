#!/usr/bin/env bash
# `nexusq sign` of a small file as a whole process, with the key agent and without (password
# file, the vault's own KDF), in alternating rounds; prints the median and p95 of each.
# Usage: benches/agent_sign.sh [NEXUSQ_BINARY] [RUNS] [AGENT_BACKEND]
#   (default: target/release/nexusq, 20, the default backend; `native` runs the agent's
#   ML-DSA on nexusq-native)
set -euo pipefail
bin=${1:-target/release/nexusq}
runs=${2:-20}
agent_backend=()
[ -n "${3:-}" ] && agent_backend=(--backend "$3")
work=$(mktemp -d)
trap '"$bin" --vault "$work/v.nxq" lock >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
printf 'bench password\n' >"$work/pw"
chmod 600 "$work/pw"
"$bin" --vault "$work/v.nxq" init --password-file "$work/pw" --revocation-out "$work/rev" >/dev/null 2>&1
printf 'a small file\n' >"$work/f"
"$bin" --vault "$work/v.nxq" agent start "${agent_backend[@]}" --password-file "$work/pw" >/dev/null 2>&1
# Microseconds from bash's own clock: `$(date +%s%N)` would add two process spawns (about 4 ms
# here) to every sample.
ms() { local t0 t1; t0=${EPOCHREALTIME/[.,]/}; "$@" >/dev/null 2>&1; t1=${EPOCHREALTIME/[.,]/}; echo $((t1 - t0)); }
with=() without=()
for ((i = 0; i < runs; i++)); do
    with+=("$(ms "$bin" --vault "$work/v.nxq" sign "$work/f")")
    without+=("$(ms "$bin" --vault "$work/v.nxq" sign --no-agent --password-file "$work/pw" "$work/f")")
done
stats() {
    sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; p=a[int(NR*0.95+0.999)];
        printf "median %.1f ms, p95 %.1f ms (%d runs)\n", m/1000, p/1000, NR}'
}
echo "with the agent:    $(printf '%s\n' "${with[@]}" | stats)"
echo "without (password): $(printf '%s\n' "${without[@]}" | stats)"
