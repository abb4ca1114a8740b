#!/usr/bin/env bash
# `git commit -S` with nexusq-git-sign (README "Sign your git commits"): with the key agent,
# with the password in $NEXUSQ_PASSWORD_FILE (each commit unlocks the vault: one Argon2id run
# with the default KDF, 64 MiB, t = 3), and an unsigned `git commit` for what git itself costs.
# Alternating rounds (the order rotates each round); prints the median and nearest-rank p95 wall
# time of each, and one `git verify-commit`. Refuses to report when a commit or a signature
# failed. The machine should be quiet: say its load.
#   benches/git_commit_sign.sh                         # RUNS=15 rounds, release build
#   BIN_DIR=target/release RUNS=20 benches/git_commit_sign.sh   # binaries already built
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-15}
if [ -z "${BIN_DIR:-}" ]; then
    cargo build -q --release --locked --bin nexusq --bin nexusq-git-sign
    BIN_DIR=${CARGO_TARGET_DIR:-target}/release
fi
bin=$(cd "$BIN_DIR" && pwd)
dir=$(mktemp -d)
trap '"$bin/nexusq" --vault "$dir/v.nxq" lock >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
(umask 077 && printf 'git benchmark password\n' >"$dir/pw")
export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1 NEXUSQ_VAULT="$dir/v.nxq" XDG_RUNTIME_DIR="$dir/run"
mkdir -p "$HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR" "$dir/no-agent"
"$bin/nexusq" init --password-file "$dir/pw" --revocation-out "$dir/rev.asc" >/dev/null 2>&1
fp=$("$bin/nexusq" --json vault open | sed -n 's/.*"fingerprint":"\([^"]*\)".*/\1/p')
git init -q -b main "$dir/repo"
cd "$dir/repo"
git config user.name bench
git config user.email bench@example.invalid
git config gpg.format x509
git config gpg.x509.program "$bin/nexusq-git-sign"
git config user.signingkey "$fp"
"$bin/nexusq" agent start --password-file "$dir/pw" >/dev/null 2>&1

one() { # agent|password|unsigned: "<kind> <microseconds>" of one commit
    local t0 t1
    local -a cmd=(git commit -q --allow-empty -S -m "$1")
    case $1 in
    # Another runtime folder: no agent there, so nexusq-git-sign reads the password file.
    password) cmd=(env XDG_RUNTIME_DIR="$dir/no-agent" NEXUSQ_PASSWORD_FILE="$dir/pw" "${cmd[@]}") ;;
    unsigned) cmd=(git commit -q --allow-empty -m "$1") ;;
    esac
    # bash's own clock: `$(date +%s%N)` would add two process spawns to every sample.
    t0=${EPOCHREALTIME/[.,]/}
    "${cmd[@]}" >/dev/null
    t1=${EPOCHREALTIME/[.,]/}
    echo "$1 $((t1 - t0))"
}
kinds=(agent password unsigned)
for k in "${kinds[@]}"; do one "$k" >/dev/null; done # warm-up
results=$(for i in $(seq "$runs"); do
    for j in 0 1 2; do one "${kinds[$(((i + j) % 3))]}"; done
done)
# Every commit is there and every signed one verifies: timing a failure would mean nothing.
good=$(git log --format=%G? | grep -c '^G$' || true)
all=$(git rev-list --count HEAD)
if [ "$good" -ne $((2 * runs + 2)) ] || [ "$all" -ne $((3 * runs + 3)) ]; then
    echo "expected $((3 * runs + 3)) commits, $((2 * runs + 2)) signed and good; got $all, $good" >&2
    exit 1
fi
echo "$results" | sort -k1,1 -k2,2n | awk '
    { t[$1, ++n[$1]] = $2 }
    END {
        for (b in n) {
            c = n[b]; med = (c % 2) ? t[b, (c + 1) / 2] : (t[b, c / 2] + t[b, c / 2 + 1]) / 2
            p = int(0.95 * c); if (p < 0.95 * c) p++
            printf "%-9s median %8.1f ms  p95 %8.1f ms  (%d runs)\n", b, med / 1000, t[b, p] / 1000, c
        }
    }'
t0=${EPOCHREALTIME/[.,]/}
git verify-commit HEAD~1 2>/dev/null
t1=${EPOCHREALTIME/[.,]/}
echo "one git verify-commit: $(((t1 - t0) / 1000)) ms"
