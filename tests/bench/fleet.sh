#!/bin/sh
# The fleet's cost per device (issue 23): premarket's whole `run` and scrapli (asyncssh, no
# judging) against the same lab fleet, the same commands (`premarket plan`), in the same run.
#
#   cargo build --release && sh tests/bench/fleet.sh [N ...]     (default: 200 1000)
#
# Needs python3 with venv and PyPI (scrapli pinned below its 2025 releases), GNU time and
# hyperfine (apt-get install time hyperfine). Everything lives under $BENCH_DIR (/dev/shm).
# premarket's figures: wall, user+system CPU and peak RSS of `premarket run` from GNU time,
# three runs each; scrapli's: wall time of three runs of tests/bench/fleet.py. Then the floor:
# a bare russh client sending the same lines (tests/bench/ssh_floor.rs; `cargo bench` builds
# it), what the SSH crate alone costs, three runs.
set -eu
cd "$(dirname "$0")/../.."
P=${PREMARKET:-$PWD/target/release/premarket}
B=${BENCH_DIR:-/dev/shm/premarket-fleet}
mkdir -p "$B"
if [ ! -x "$B/venv/bin/python" ]; then
    python3 -m venv "$B/venv"
    "$B/venv/bin/pip" install --quiet 'scrapli<2025' asyncssh
fi
ulimit -n 65536 2>/dev/null || true
for N in ${*:-200 1000}; do
    rm -rf "$B/site$N"
    "$P" lab serve --devices "$N" --site-dir "$B/site$N" >"$B/lab$N.out" 2>&1 &
    LAB=$!
    # The lab writes its site once every device listens.
    for _ in $(seq 120); do [ -f "$B/site$N/baselines/site.yaml" ] && break; sleep 1; done
    sleep 2
    echo "== $N devices"
    "$P" --dir "$B/site$N" run --no-email >/dev/null 2>&1 || true   # warm-up, first archive
    for i in 1 2 3; do
        /usr/bin/time -f "premarket run: %e s wall, %U s user, %S s sys, %M KB peak RSS" \
            "$P" --dir "$B/site$N" run --no-email >/dev/null 2>>"$B/time$N.txt" || true
        tail -1 "$B/time$N.txt"
        printf 'scrapli:       '; "$B/venv/bin/python" tests/bench/fleet.py "$P" "$B/site$N"
    done
    "$P" --dir "$B/site$N" plan >"$B/plan$N.txt"
    for i in 1 2 3; do
        cargo bench --quiet --locked --bench ssh_floor -- "$B/site$N" "$B/plan$N.txt" 2>&1 | tail -1
    done
    kill "$LAB"; wait "$LAB" 2>/dev/null || true
done
