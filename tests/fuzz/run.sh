#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets: `tests/fuzz/run.sh SECONDS [TARGET...]` (all four by
# default), each for SECONDS, on the stable toolchain (cargo-fuzz with `--sanitizer none`:
# `cargo install cargo-fuzz --locked` once). Crashes land in tests/fuzz/artifacts/<target>/
# and the script exits non-zero; see tests/fuzz/README.md.
#
# The corpus grows in $CARGO_TARGET_DIR/fuzz-corpus/<target> (default target/), started from
# tests/fuzz/seeds/<target> and, for the parser targets, from the parser fixtures in
# tests/fixtures/ (each with its command as the first line, as the targets read them).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fortios_parsers eos_parsers screen config_loader)

target_dir=${CARGO_TARGET_DIR:-target}
corpus_root=$target_dir/fuzz-corpus
# The fuzz build has its own flags (coverage instrumentation): keep it apart from the project's.
export CARGO_TARGET_DIR=$target_dir/fuzz

# Parser seeds: each fixture folder holds outputs of one command; the seed is the command on
# the first line, then the output (as the parser targets read their input).
declare -A command_of=(
    [fortigate/diagnose-npu-np6-port-list]='diagnose npu np6 port-list'
    [fortigate/diagnose-npu-np7-port-list]='diagnose npu np7 port-list'
    [fortigate/diagnose-npu-np7lite-port-list]='diagnose npu np7lite port-list'
    [fortigate/diagnose-sys-mcast-session-list]='diagnose sys mcast-session list'
    [fortigate/diagnose-sys-ntp-status]='diagnose sys ntp status'
    [fortigate/diagnose-sys-session-filter]='diagnose sys session filter'
    [fortigate/diagnose-sys-session-list]='diagnose sys session list'
    [fortigate/diagnose-sys-session-stat]='diagnose sys session stat'
    [fortigate/get-system-global]='get system global'
    [fortigate/get-system-ha-status]='get system ha status'
    [fortigate/get-system-interface]='get system interface'
    [fortigate/get-system-performance-status]='get system performance status'
    [fortigate/get-system-status]='get system status'
    [fortigate/show-firewall-multicast-policy]='show firewall multicast-policy 1'
    [fortigate/show-firewall-policy]='show firewall policy 1'
    [fortigate/show-firewall-service-custom]='show firewall service custom MD-UDP-5000'
    [fortigate/show-system-npu]='show system npu'
    [fortigate/show-system-session-ttl]='show system session-ttl'
    [fortigate/show-system-interface]='show system interface'
    [fortigate/show-system-virtual-switch]='show system virtual-switch'
    [fortigate/show]='show'
    [eos/show-interfaces]='show interfaces | json'
    [eos/show-interfaces-counters-discards]='show interfaces counters discards | json'
    [eos/show-interfaces-counters-errors]='show interfaces counters errors | json'
    [eos/show-interfaces-counters-queue-detail]='show interfaces counters queue detail | json'
    [eos/show-interfaces-counters-queue-drops]='show interfaces counters queue drops | json'
    [eos/show-interfaces-transceiver-dom-thresholds]='show interfaces transceiver dom thresholds | json'
    [eos/show-ip-igmp-snooping]='show ip igmp snooping | json'
    [eos/show-ip-igmp-snooping-groups]='show ip igmp snooping groups | json'
    [eos/show-ip-igmp-snooping-querier]='show ip igmp snooping querier | json'
    [eos/show-ntp-associations]='show ntp associations | json'
    [eos/show-ntp-status]='show ntp status'
    [eos/show-interfaces-port]='show interfaces Ethernet1 | json'
    [eos/show-ptp]='show ptp | json'
    [eos/show-ptp-masters]='show ptp masters | json'
    [eos/show-running-config]='show running-config'
    [eos/show-queue-monitor-length]='show queue-monitor length | json'
    [eos/show-queue-monitor-length-status]='show queue-monitor length status | json'
    [eos/show-reload-cause]='show reload cause | json'
    [eos/show-running-config-diffs]='show running-config diffs'
    [eos/show-startup-config]='show startup-config'
    [eos/show-version]='show version | json'
)
seed_parsers() {
    local platform=$1 out=$2 dir key file
    for dir in tests/fixtures/"$platform"/*/; do
        key=$platform/$(basename "$dir")
        if [ -z "${command_of[$key]:-}" ]; then
            echo "note: no command known for tests/fixtures/$key (add it to run.sh); not seeded"
            continue
        fi
        for file in "$dir"*; do
            [ -f "$file" ] || continue
            { printf '%s\n' "${command_of[$key]}"; cat "$file"; } >"$out/${key//\//-}--$(basename "$file")"
        done
    done
}

# PREMARKET_FUZZ_DEV=1 (CI): an unoptimised build with the same coverage instrumentation. It
# builds in a fraction of the release build's time and runs fewer inputs per second: right for
# CI's brief run of each target, wrong for a campaign of minutes (leave it unset).
mode=()
[ "${PREMARKET_FUZZ_DEV:-}" = 1 ] && mode=(--dev)
echo "== fuzz build (all targets${mode:+, ${mode[*]}})"
nice -n 19 cargo fuzz build "${mode[@]}" --sanitizer none --fuzz-dir tests/fuzz
status=0
for target in "${targets[@]}"; do
    corpus=$corpus_root/$target
    mkdir -p "$corpus" "tests/fuzz/artifacts/$target"
    case $target in
    fortios_parsers) seed_parsers fortigate "$corpus" ;;
    eos_parsers) seed_parsers eos "$corpus" ;;
    esac
    seeds=()
    [ -d "tests/fuzz/seeds/$target" ] && seeds=("tests/fuzz/seeds/$target")
    echo "== fuzz $target for ${seconds}s"
    # -timeout: one input slower than 10 s is a runaway (hostile output must parse in linear
    # time); -rss_limit_mb: a blow-up in memory is a finding too.
    dict=()
    [ -f "tests/fuzz/dict/$target.dict" ] && dict=(-dict="tests/fuzz/dict/$target.dict")
    log=$corpus_root/$target.log
    rc=0
    nice -n 19 cargo fuzz run "${mode[@]}" --sanitizer none --fuzz-dir tests/fuzz "$target" \
        "$corpus" "${seeds[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 "${dict[@]}" >"$log" 2>&1 || rc=$?
    # The closing lines: inputs run, coverage reached, and any crash with its reproducer.
    grep -E '(DONE|INITED|stat::number_of_executed_units|stat::peak_rss_mb|panicked|ERROR|SUMMARY|Test unit written|Minimize)' "$log" | tail -n 12 || true
    if [ "$rc" -ne 0 ]; then
        echo "fuzz $target FAILED (exit $rc): reproducer in tests/fuzz/artifacts/$target/, log $log"
        status=1
    fi
done
exit $status
