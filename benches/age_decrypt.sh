#!/usr/bin/env bash
# Decrypting one age file (one mlkem768x25519 recipient) with `nexusq decrypt -o` and with the
# reference `age -d -o`, in alternating rounds; prints the median and p95 wall time of each and
# the ratios (BENCHMARKS.md, "age decryption").
#
#   benches/age_decrypt.sh NEXUSQ AGE [MEGABYTES] [ROUNDS]
#
# NEXUSQ is a release build (target/release/nexusq), AGE an age 1.3+ binary with age-keygen
# beside it. Both decrypt with the same age-keygen -pq identity file (-i), so neither pays for a
# password KDF; the vault path (Argon2id) is measured elsewhere. Run it on a quiet machine.
set -euo pipefail
nexusq=$1
age=$2
mb=${3:-200}
rounds=${4:-7}
keygen=$(dirname "$age")/age-keygen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$keygen" -pq -o "$work/key.txt" 2>/dev/null
"$keygen" -y "$work/key.txt" > "$work/recipient.txt"
head -c "$((mb * 1000 * 1000))" /dev/urandom > "$work/plain"
"$age" -R "$work/recipient.txt" -o "$work/file.age" "$work/plain"

now() { date +%s.%N; }
# -o: nexusq writes a temporary file, fsyncs it and renames it (all or nothing); age writes the
# file as it goes. The "stdout" variants redirect to a file instead, with no fsync for either.
run_nexusq() { "$nexusq" decrypt -i "$work/key.txt" -o "$work/out" "$work/file.age" 2>/dev/null; }
run_age() { "$age" -d -i "$work/key.txt" -o "$work/out" "$work/file.age"; }
run_nexusq_stdout() { "$nexusq" decrypt -i "$work/key.txt" "$work/file.age" > "$work/out" 2>/dev/null; }
run_age_stdout() { "$age" -d -i "$work/key.txt" "$work/file.age" > "$work/out"; }

all="nexusq age nexusq_stdout age_stdout"
for who in $all; do : > "$work/$who.t"; done
# One warm-up (page cache), then rotate which goes first.
rm -f "$work/out"; run_nexusq; cmp -s "$work/out" "$work/plain"
rm -f "$work/out"; run_age; cmp -s "$work/out" "$work/plain"
for ((i = 0; i < rounds; i++)); do
    order=$(echo $all | tr ' ' '\n' | awk -v i="$i" '{a[NR]=$0} END {for (k = 0; k < NR; k++) print a[(k + i) % NR + 1]}')
    for who in $order; do
        rm -f "$work/out"
        t0=$(now)
        "run_$who"
        t1=$(now)
        echo "$t1 - $t0" | bc -l >> "$work/$who.t"
        cmp -s "$work/out" "$work/plain" || { echo "$who: wrong output" >&2; exit 1; }
    done
done

stats() { # median p95 min max, in seconds
    sort -g "$1" | awk '{v[NR]=$1} END {
        m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
        p = v[int(0.95 * NR + 0.999999)]; if (p == "") p = v[NR];
        printf "%.3f %.3f %.3f %.3f\n", m, p, v[1], v[NR] }'
}
echo "file: $mb MB plaintext, one mlkem768x25519 recipient; $rounds rotating rounds"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "nexusq $("$nexusq" --version | cut -d' ' -f2), age $("$age" --version)"
for pair in "nexusq age" "nexusq_stdout age_stdout"; do
    set -- $pair
    read -r nm np nmin nmax < <(stats "$work/$1.t")
    read -r am ap amin amax < <(stats "$work/$2.t")
    for row in "$1 $nm $np $nmin $nmax" "$2 $am $ap $amin $amax"; do
        set -- $row
        printf '%-14s median %6.3f s  p95 %6.3f s  min %6.3f  max %6.3f  %5.0f MB/s\n' "$1" "$2" "$3" "$4" "$5" "$(echo "$mb / $2" | bc -l)"
    done
    echo "ratio nexusq / age ($pair): median $(echo "$nm / $am" | bc -l | xargs printf '%.2f'), p95 $(echo "$np / $ap" | bc -l | xargs printf '%.2f')"
done
