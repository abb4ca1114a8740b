#!/usr/bin/env bash
# Remakes benches/results/report.html from every evidence file here (*.jsonl)
# and its screenshots with headless Chromium: report-390.png (phone width) and
# report-1280.png (desktop), each the whole page or the first PHONE_HEIGHT / DESKTOP_HEIGHT
# pixels of it; and arena.html, the page of the newest full arena runs alone (ARENA, default
# the 2026-12-04 pair), with arena-390.png and arena-1280.png. Needs a release build of nexusq (built if missing) and Debian's `chromium`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
cargo build --release --locked -q
nexusq=$PWD/target/release/nexusq
# Named relative to this folder, so the page names them as the repository does; nexusq bench's
# datasets first, then the arena's.
cd "$here"
shopt -s nullglob
evidence=(*-bench-*.jsonl)
for f in *.jsonl; do
    case $f in *-bench-*) ;; *) evidence+=("$f") ;; esac
done
[ ${#evidence[@]} -gt 0 ] || { echo "no evidence files in $here" >&2; exit 2; }
"$nexusq" report "${evidence[@]}" -o report.html
chmod 0644 report.html
chromium=${NEXUSQ_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
shot() {
    local page=$1 width=$2 height=$3 profile
    profile=$(mktemp -d)
    "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$profile" --window-size="$width,$height" \
        --screenshot="$here/$page-$width.png" "file://$here/$page.html" 2>/dev/null
    rm -rf "$profile"
}
shot report 390 "${PHONE_HEIGHT:-9000}"
shot report 1280 "${DESKTOP_HEIGHT:-6000}"
# shellcheck disable=SC2206 # ARENA is a list of file names
arena=(${ARENA:-2026-12-04-x86_64-arena-openssl.jsonl 2026-12-04-x86_64-arena-boringssl.jsonl})
"$nexusq" report "${arena[@]}" -o arena.html
chmod 0644 arena.html
shot arena 390 "${PHONE_HEIGHT:-9000}"
shot arena 1280 "${DESKTOP_HEIGHT:-6000}"
ls -l "$here"/report.html "$here"/report-*.png "$here"/arena.html "$here"/arena-*.png
