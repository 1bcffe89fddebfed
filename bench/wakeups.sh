#!/usr/bin/env bash
# What waking a sleeping thread costs this machine (bench/wakeups.c): two threads on two
# CPUs, two threads on one, then two processes on one, pass a token through eventfds. Each
# message a coordinator handles wakes a few threads (libzmq's I/O thread, the endpoint's, the
# actor's) and each one it sends wakes a worker's; how much of an item's cost that is
# depends on this (docs/benchmarks.md, "What an item costs the coordinator"). Interleaved
# runs, medians.
#   bench/wakeups.sh [ROUNDS] [RUNS]
set -euo pipefail
rounds=${1:-20000}; runs=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/squeeze-wakeups.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -pthread -o "$work/wakeups" "$(dirname "$0")/wakeups.c"
placements=(together processes)
(( $(nproc) >= 2 )) && placements=(apart together processes)
for _ in $(seq "$runs"); do
  for placement in "${placements[@]}"; do
    "$work/wakeups" "$placement" "$rounds"
  done
done | python3 -c '
import statistics, sys
runs = {}
for line in sys.stdin:
    placement, _, wall, cpu = line.split()
    runs.setdefault(placement, []).append((float(wall), float(cpu)))
names = {"apart": "two threads on two CPUs", "together": "two threads on one CPU", "processes": "two processes on one CPU"}
print("| placement | runs | wall µs per wake-up (median) | CPU µs per wake-up (median) |")
print("| --- | ---: | ---: | ---: |")
for placement, values in runs.items():
    wall = statistics.median(v[0] for v in values)
    cpu = statistics.median(v[1] for v in values)
    print(f"| {names[placement]} | {len(values)} | {wall:.1f} | {cpu:.1f} |")
'
