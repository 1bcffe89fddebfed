#!/usr/bin/env bash
# The way back: decompression of one big file, squeeze -dc against igzip -dc (ISA-L, one
# thread), rapidgzip -P 2 and pigz -dc, interleaved and repeated, medians; and squeeze index
# (time, index size). Inputs, made untimed: squeeze's own level-6 and level-1 outputs of the
# file (written to files: with the offset table), and pigz -6's. Prints a markdown section. Everything in memory (/dev/shm when it has
# room), output to /dev/null.
#   bench/way-back.sh SQUEEZE_BIN FILE RUNS PYTHON_VENV
set -euo pipefail
bin=${1:?usage: way-back.sh SQUEEZE_BIN FILE RUNS PYTHON_VENV}
file=${2:?}; runs=${3:?}; venv=${4:?}
rapidgzip=$venv/bin/rapidgzip
[[ -x $rapidgzip ]] || { echo "way-back: no rapidgzip in $venv (make pydeps)" >&2; exit 1; }
command -v igzip >/dev/null || { echo "way-back: no igzip (Debian's isal)" >&2; exit 1; }

place=${TMPDIR:-/tmp}
size=$(stat -c %s "$file")
[[ -d /dev/shm && $(df -k --output=avail /dev/shm | tail -1) -gt $(( size * 2 / 1024 )) ]] && place=/dev/shm
work=$(mktemp -d "$place/squeeze-way-back.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "way-back: inputs in $work" >&2
"$bin" -6 -c "$file" > "$work/squeeze-6.gz"
"$bin" -1 -c "$file" > "$work/squeeze-1.gz"
pigz -6 -p 2 -c "$file" > "$work/pigz-6.gz"
results=$work/results
: > "$results"

# time_it INPUT TOOL -- command: one run, wall seconds to $results.
time_it() {
  local input=$1 tool=$2; shift 3
  cat "$work/$input" > /dev/null
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  printf '%s\t%s\t%s\n' "$input" "$tool" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')" | tee -a "$results" >&2
}

for run in $(seq "$runs"); do
  echo "way-back: run $run/$runs" >&2
  for input in squeeze-6.gz squeeze-1.gz pigz-6.gz; do
    time_it $input "squeeze -dc" -- "$bin" -dc "$work/$input"
    time_it $input "igzip -dc" -- igzip -dc "$work/$input"
    time_it $input "rapidgzip -P 2 -dc" -- "$rapidgzip" -P 2 -dc "$work/$input"
    time_it $input "pigz -dc" -- pigz -dc "$work/$input"
    time_it $input "squeeze index" -- "$bin" index --force -o "$work/$input.gzidx" "$work/$input"
  done
done
for input in squeeze-6.gz squeeze-1.gz pigz-6.gz; do
  printf '%s\tsizes\t%s %s\n' "$input" "$(stat -c %s "$work/$input")" "$(stat -c %s "$work/$input.gzidx")" >> "$results"
done

python3 - "$results" "$size" "$runs" <<'PY'
import sys, statistics, collections
path, raw, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times, sizes = collections.defaultdict(list), {}
for line in open(path):
    input, tool, value = line.rstrip("\n").split("\t")
    if tool == "sizes": sizes[input] = tuple(int(v) for v in value.split())
    else: times[(input, tool)].append(float(value))
names = {"squeeze-6.gz": "squeeze -6 output", "squeeze-1.gz": "squeeze -1 output", "pigz-6.gz": "pigz -6 output"}
out = ["## The way back", "",
       f"One file of {raw / 1e6:.0f} MB decompressed to /dev/null from memory, {runs} run(s) interleaved, medians. "
       "\"vs rapidgzip\" and \"vs igzip\" are their times over the tool's (above 1 is faster). "
       "squeeze's outputs are written to files, so they carry its offset table (docs/format.md). "
       "`squeeze index` writes a GZIDX index (4 MiB spacing): from that table at once, by one decoding pass for pigz's file.", "",
       "| input | .gz bytes | tool | median s | MB/s | vs rapidgzip -P 2 | vs igzip -dc |", "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
for input, label in names.items():
    rapid = statistics.median(times[(input, "rapidgzip -P 2 -dc")])
    igzip = statistics.median(times[(input, "igzip -dc")])
    for tool in ["squeeze -dc", "igzip -dc", "rapidgzip -P 2 -dc", "pigz -dc", "squeeze index"]:
        t = statistics.median(times[(input, tool)])
        shown = tool if tool != "squeeze index" else f"squeeze index ({sizes[input][1]:,} bytes of index)"
        out.append(f"| {label} | {sizes[input][0]:,} | {shown} | {t:.2f} | {raw / t / 1e6:.0f} | {rapid / t:.2f}x | {igzip / t:.2f}x |")
print("\n".join(out))
PY
