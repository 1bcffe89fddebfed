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

# Per input, every tool once a round in a shuffled order (bench/interleave.py): drift falls on
# all of them alike. Run one after another in a fixed order, squeeze's ratio to rapidgzip moved
# by 10 % from run to run (measured). Medians to $results.
here=$(cd "$(dirname "$0")" && pwd)
for input in squeeze-6.gz squeeze-1.gz pigz-6.gz; do
  echo "way-back: $input, $runs rounds" >&2
  python3 "$here/interleave.py" "$runs" "$input" \
    "squeeze -dc" "$bin -dc $work/$input" \
    "igzip -dc" "igzip -dc $work/$input" \
    "rapidgzip -P 2 -dc" "$rapidgzip -P 2 -dc $work/$input" \
    "pigz -dc" "pigz -dc $work/$input" \
    "squeeze index" "$bin index --force -o $work/$input.gzidx $work/$input" \
    | cut -f1-3 | tee -a "$results" >&2
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
       f"One file of {raw / 1e6:.0f} MB decompressed to /dev/null from memory, {runs} rounds, each tool once a round in a shuffled order, medians. "
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
