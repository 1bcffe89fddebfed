#!/usr/bin/env bash
# What creating each small output costs the kernel, two ways (bench/remote-writes.c): one
# system call per operation, as a remote cluster's coordinator writes outputs now, against
# io_uring with each file's open, write, close and rename linked and 64 files a submission.
# Interleaved runs in memory (/dev/shm), medians of CPU seconds (user + system, io_uring's
# kernel workers included: they are threads of the process). Installs liburing-dev with
# apt-get when it is missing (Debian).
#   bench/remote-writes.sh [FILES] [BYTES] [RUNS]
set -euo pipefail
files=${1:-200000}; bytes=${2:-1500}; runs=${3:-5}
if [[ ! -f /usr/include/liburing.h ]]; then
  echo "remote-writes: installing liburing-dev" >&2
  apt-get install -y liburing-dev >/dev/null
fi
place=${TMPDIR:-/tmp}
[[ -d /dev/shm ]] && place=/dev/shm
work=$(mktemp -d "$place/squeeze-remote-writes.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -o "$work/remote-writes" "$(dirname "$0")/remote-writes.c" -luring
for run in $(seq "$runs"); do
  for way in syscalls io_uring; do
    mkdir "$work/$way-$run"
    "$work/remote-writes" "$work/$way-$run" "$way" "$files" "$bytes" | awk -v way="$way" '{ print way, $(NF-1) }'
    rm -rf "${work:?}/$way-$run"
  done
done | python3 -c '
import statistics, sys
runs = {}
for line in sys.stdin:
    way, seconds = line.split()
    runs.setdefault(way, []).append(float(seconds))
files = int(sys.argv[1])
print("| way | runs | CPU s (median) | µs per file |")
print("| --- | ---: | ---: | ---: |")
for way, values in runs.items():
    median = statistics.median(values)
    print(f"| {way} | {len(values)} | {median:.2f} | {median / files * 1e6:.1f} |")
' "$files"
