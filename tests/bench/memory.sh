#!/bin/sh
# Bounded-memory benchmarks of issue 11, measured side by side in one run (release build):
#   1. `run --offline` of the example site with a 1,000,000-session list (1.1 GB) beside
#      `grep -c 'session info'` on the same file; with and without `--archive` (which writes the
#      list compressed into the archive);
#   2. `premarket run` against `lab serve --scenario huge-session-list` (200,000 sessions, paged);
#   3. the 200-device fleet.
# Peak memory is /usr/bin/time -v's "Maximum resident set size". Usage, from the repository:
#   cargo build --release && cargo bench --bench session_list -- 1000000 /tmp/pm-bench/session-list.txt
#   sh tests/bench/memory.sh [/tmp/pm-bench]
set -eu
B=${1:-/tmp/pm-bench}
P=${PREMARKET:-$(pwd)/target/release/premarket}
REPO=$(pwd)
mkdir -p "$B"
LIST="$B/session-list.txt"
[ -f "$LIST" ] || { echo "generate $LIST first (cargo bench --bench session_list -- 1000000 $LIST)"; exit 1; }
peak() { /usr/bin/time -f "$1: %e s wall, %M KB peak RSS" "$@"; }

# 1. The example site, offline, with the healthy fixtures and fw1's unicast session list replaced.
rm -rf "$B/site" "$B/input"
mkdir -p "$B/site"
cp -r "$REPO/baselines" "$REPO/checks" "$B/site/"
cp -r "$REPO/tests/fixtures/site/healthy" "$B/input"
for f in "$B"/input/fw1/diagnose-sys-session-filter-clear-*; do
    # The list's file, not the filter's read-back (which starts with the readback command).
    if grep -q '# diagnose sys session list' "$f"; then ln -f "$LIST" "$f"; fi
done
for i in 1 2 3; do
    /usr/bin/time -f "grep -c: %e s wall, %M KB peak RSS" grep -c 'session info' "$LIST" | cat
    /usr/bin/time -f "run --offline: %e s wall, %M KB peak RSS" \
        "$P" --dir "$B/site" run --offline "$B/input" --no-email >/dev/null || true
    /usr/bin/time -f "run --offline --archive: %e s wall, %M KB peak RSS" \
        "$P" --dir "$B/site" run --offline "$B/input" --no-email --archive >/dev/null || true
done
rm -rf "$B/site/archive"

# 2. The lab's huge session list over SSH.
rm -rf "$B/labsite"
"$P" lab serve --scenario huge-session-list --site-dir "$B/labsite" >"$B/lab.out" 2>&1 &
LAB=$!
sleep 5
for i in 1 2 3; do
    /usr/bin/time -f "run vs huge-session-list: %e s wall, %M KB peak RSS" \
        "$P" --dir "$B/labsite" run --no-email >/dev/null || true
done
kill "$LAB"

# 3. The 200-device fleet.
rm -rf "$B/fleet"
"$P" lab serve --devices 200 --site-dir "$B/fleet" >"$B/fleet.out" 2>&1 &
LAB=$!
sleep 8
hyperfine -N -i --warmup 1 --runs 10 "$P --dir $B/fleet run --no-email"
kill "$LAB"
