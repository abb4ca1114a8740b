#!/usr/bin/env bash
# `git commit -S` with nexusq-git-sign (README "Sign your git commits") against an unsigned
# `git commit`, in alternating rounds, from a vault with the default KDF (Argon2id 64 MiB,
# t = 3) and the password in $NEXUSQ_PASSWORD_FILE. Without the agent every signed commit
# unlocks the vault, so the difference is mostly one Argon2id run. Prints the median and
# nearest-rank p95 wall time in ms. The machine should be quiet: say its load.
#   benches/git_commit_sign.sh            # RUNS=15 rounds, release build
#   BIN_DIR=target/debug benches/git_commit_sign.sh   # binaries already built (the dev
#                                         # profile builds nexusq and its deps at opt-level 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-15}
if [ -z "${BIN_DIR:-}" ]; then
    cargo build -q --release --locked --bin nexusq --bin nexusq-git-sign
    BIN_DIR=${CARGO_TARGET_DIR:-target}/release
fi
bin=$(cd "$BIN_DIR" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(umask 077 && printf 'git benchmark password\n' >"$dir/pw")
"$bin/nexusq" --vault "$dir/v.nxq" init --password-file "$dir/pw" --revocation-out "$dir/rev.asc" \
    >/dev/null 2>&1
fp=$("$bin/nexusq" --vault "$dir/v.nxq" --json vault open | sed -n 's/.*"fingerprint":"\([^"]*\)".*/\1/p')
export HOME="$dir" GIT_CONFIG_NOSYSTEM=1 NEXUSQ_VAULT="$dir/v.nxq" NEXUSQ_PASSWORD_FILE="$dir/pw"
git init -q -b main "$dir/repo"
cd "$dir/repo"
git config user.name bench
git config user.email bench@example.invalid
git config gpg.format x509
git config gpg.x509.program "$bin/nexusq-git-sign"
git config user.signingkey "$fp"

one() { # signed|unsigned: microseconds of one commit
    local t0 t1 flag=""
    [ "$1" = signed ] && flag=-S
    t0=$(date +%s%N)
    git commit -q --allow-empty $flag -m "$1" >/dev/null
    t1=$(date +%s%N)
    echo "$1 $(((t1 - t0) / 1000))"
}
one signed >/dev/null
one unsigned >/dev/null
first=$(git rev-parse HEAD~1)
git verify-commit "$first" 2>/dev/null
for i in $(seq "$runs"); do
    if [ $((i % 2)) -eq 0 ]; then one signed; one unsigned; else one unsigned; one signed; fi
done | sort -k1,1 -k2,2n | awk '
    { t[$1, ++n[$1]] = $2 }
    END {
        for (b in n) {
            c = n[b]; med = (c % 2) ? t[b, (c + 1) / 2] : (t[b, c / 2] + t[b, c / 2 + 1]) / 2
            p = int(0.95 * c); if (p < 0.95 * c) p++
            printf "%-9s median %8.1f ms  p95 %8.1f ms  (%d runs)\n", b, med / 1000, t[b, p] / 1000, c
        }
    }'
t0=$(date +%s%N)
git verify-commit "$first" 2>/dev/null
t1=$(date +%s%N)
echo "one git verify-commit: $(((t1 - t0) / 1000000)) ms"
