#!/usr/bin/env bash
# `git commit -S` with nexusq-git-sign as git's signing program, with the key agent and
# without (NEXUSQ_PASSWORD_FILE, the vault's own KDF), in alternating rounds; prints the median
# and p95 of each, and of an unsigned commit for reference (what git itself costs).
# Usage: benches/git_commit_sign.sh [BIN_DIR] [RUNS]   (default: target/release, 20)
set -euo pipefail
bin_dir=$(cd "${1:-target/release}" && pwd)
runs=${2:-20}
nexusq=$bin_dir/nexusq
work=$(mktemp -d)
trap '"$nexusq" --vault "$work/v.nxq" lock >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run HOME=$work/home GIT_CONFIG_NOSYSTEM=1 NEXUSQ_VAULT=$work/v.nxq
mkdir -m 700 "$XDG_RUNTIME_DIR" "$work/no-agent"
mkdir "$HOME"
printf 'bench password\n' >"$work/pw"
chmod 600 "$work/pw"
"$nexusq" init --password-file "$work/pw" --revocation-out "$work/rev" >/dev/null 2>&1
fp=$("$nexusq" vault open --json | sed 's/.*"fingerprint":"\([^"]*\)".*/\1/')
git init -q -b main "$work/repo"
cd "$work/repo"
git config user.name bench
git config user.email bench@example.invalid
git config gpg.format x509
git config gpg.x509.program "$bin_dir/nexusq-git-sign"
git config user.signingkey "$fp"
"$nexusq" agent start --password-file "$work/pw" >/dev/null 2>&1
# us MESSAGE-TAG COMMAND...: stage a new change, time COMMAND (run in a subshell, so the
# change is made from the tag, not from a counter).
us() {
    local t0 t1
    echo "$1" >file
    shift
    git add file
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}
with=() without=() unsigned=()
for ((i = 0; i < runs; i++)); do
    with+=("$(us "a$i" git commit -q -S -m "with agent $i")")
    # Another runtime folder: no agent is found there, so the password file is used.
    without+=("$(us "p$i" env XDG_RUNTIME_DIR="$work/no-agent" NEXUSQ_PASSWORD_FILE="$work/pw" git commit -q -S -m "password $i")")
    unsigned+=("$(us "u$i" git commit -q -m "unsigned $i")")
done
# Every commit must exist and every signed one verify: timing a failing command means nothing.
good=$(git log --format=%G? | grep -c '^G$' || true)
all=$(git rev-list --count HEAD)
if [ "$good" -ne $((2 * runs)) ] || [ "$all" -ne $((3 * runs)) ]; then
    echo "expected $((3 * runs)) commits, $((2 * runs)) with good signatures; got $all and $good" >&2
    exit 1
fi
stats() {
    sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; p=a[int(NR*0.95+0.999)];
        printf "median %.1f ms, p95 %.1f ms (%d runs)\n", m/1000, p/1000, NR}'
}
echo "git commit -S, with the agent:     $(printf '%s\n' "${with[@]}" | stats)"
echo "git commit -S, password file:      $(printf '%s\n' "${without[@]}" | stats)"
echo "git commit (unsigned, reference):  $(printf '%s\n' "${unsigned[@]}" | stats)"
