#!/usr/bin/env bash
# One machine at its limit (#43): squeeze against the engine's own ceiling on this machine,
# every level against pigz, small jobs and the small tree, all in memory (/dev/shm when it has
# room), interleaved and repeated in one run, medians. Prints a markdown section.
#
#   bench/one-machine.sh SQUEEZE_BIN FILE SMALL_TREE RUNS [--levels-only | --no-levels]
#
# The ceiling is the same engine and setting run as whole-file processes, one per core, on the
# two halves of FILE at once: libdeflate-gzip -6 for the default level, igzip -3 for level 1
# (the engines squeeze picks there). Nothing can split the work more evenly or with less
# overhead, so squeeze's time over it says how much of the two cores its pipeline wastes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: one-machine.sh SQUEEZE_BIN FILE SMALL_TREE RUNS [--levels-only|--no-levels]}
file=${2:?}; small=${3:?}; runs=${4:?}; only=${5:-}
for tool in libdeflate-gzip igzip pigz gzip; do
  command -v $tool >/dev/null || { echo "one-machine: $tool is missing (make bench installs it)" >&2; exit 1; }
done

size=$(stat -c %s "$file")
place=${TMPDIR:-/tmp}
# Room for the file, its halves, a sample and every output at once, with margin.
[[ -d /dev/shm && $(df -k --output=avail /dev/shm | tail -1) -gt $(( size * 5 / 1024 )) ]] && place=/dev/shm
work=$(mktemp -d "$place/squeeze-one-machine.XXXXXX")
trap 'cp "$work/results" "${ONE_MACHINE_RESULTS:-/dev/null}" 2>/dev/null; rm -rf "$work"' EXIT
echo "one-machine: working in $work" >&2

cp "$file" "$work/file"
split -n 2 -d "$work/file" "$work/half-"
# The level table's sample: every fourth MiB of the file, as the main level table takes it.
python3 - "$work/file" "$work/sample" <<'PY'
import sys
with open(sys.argv[1], "rb") as i, open(sys.argv[2], "wb") as o:
    n = 0
    while chunk := i.read(1 << 20):
        if n % 4 == 0: o.write(chunk)
        n += 1
PY
head -c 1000000 "$work/file" > "$work/one-mb"
cp -a "$small" "$work/small"
results=$work/results
: > "$results"

# time_it GROUP ROW OUTPUT -- command: one run, wall seconds and the output's bytes. The output
# is removed first, unless it is given as +PATH (a tree compressed in place).
time_it() {
  local group=$1 row=$2 output=$3; shift 4
  if [[ $output == +* ]]; then output=${output#+}; else rm -rf "$output"; fi
  local start end bytes
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  if [[ -d $output ]]; then bytes=$(find "$output" -type f -name '*.gz' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  else bytes=$(stat -c %s "$output"); fi
  printf '%s\t%s\t%s\t%s\n' "$group" "$row" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')" "$bytes" | tee -a "$results" >&2
}
halves() { # halves TOOL ARGS...: the tool on both halves at once, outputs half-0X.gz
  "$@" -c "$work/half-00" > "$work/half-00.gz" & local a=$!
  "$@" -c "$work/half-01" > "$work/half-01.gz" & local b=$!
  wait $a && wait $b
}
ceiling_bytes() { cat "$work/half-00.gz" "$work/half-01.gz" > "$work/halves.gz"; }

# Sizes of gzip -N (untimed): the promise every level keeps. Two at a time, one per core.
gzip_sizes() { # gzip_sizes INPUT NAME LEVELS...
  local input=$1 name=$2; shift 2
  printf '%s\n' "$@" | xargs -P 2 -I{} bash -c "printf 'gzip\t%s -%s\t0\t%s\n' '$name' {} \"\$(gzip -{} -n -c '$input' | wc -c)\"" >> "$results"
}

if [[ $only != --levels-only ]]; then
  gzip_sizes "$work/file" file 6 1
  for run in $(seq "$runs"); do
    echo "one-machine: ceiling, run $run/$runs" >&2
    time_it ceiling "ceiling -6: libdeflate-gzip -6 on each half at once" "$work/halves.gz" -- bash -c "$(declare -f halves); work='$work'; halves libdeflate-gzip -6 && cat '$work/half-00.gz' '$work/half-01.gz' > '$work/halves.gz'"
    time_it ceiling "squeeze compress --level 6" "$work/out" -- "$bin" compress "$work/file" -o "$work/out" --level 6
    time_it ceiling "squeeze -6 -c (drop-in)" "$work/drop.gz" -- bash -c "'$bin' -6 -c '$work/file' > '$work/drop.gz'"
    time_it ceiling "pigz -6 -p 2" "$work/pigz.gz" -- bash -c "pigz -6 -p 2 -c '$work/file' > '$work/pigz.gz'"
    time_it ceiling "ceiling -1: igzip -3 on each half at once" "$work/halves.gz" -- bash -c "$(declare -f halves); work='$work'; halves igzip -3 && cat '$work/half-00.gz' '$work/half-01.gz' > '$work/halves.gz'"
    time_it ceiling "squeeze compress --level 1" "$work/out" -- "$bin" compress "$work/file" -o "$work/out" --level 1
    time_it ceiling "squeeze -1 -c (drop-in)" "$work/drop.gz" -- bash -c "'$bin' -1 -c '$work/file' > '$work/drop.gz'"
    time_it ceiling "pigz -1 -p 2" "$work/pigz.gz" -- bash -c "pigz -1 -p 2 -c '$work/file' > '$work/pigz.gz'"
    for level in 0 1 2 3; do
      time_it peers "igzip -$level -T 2" "$work/igzip.gz" -- bash -c "igzip -$level -T 2 -c '$work/file' > '$work/igzip.gz'"
    done
    echo "one-machine: small jobs, run $run/$runs" >&2
    time_it small "xargs -P 2 gzip -6 (per file)" "+$work/small" -- bash -c "cd '$work/small' && find . -type f ! -name '*.gz' -print0 | xargs -0 -P 2 -n 64 gzip -6 -k -f"
    find "$work/small" -name '*.gz' -delete
    time_it small "squeeze compress" "$work/small-out" -- "$bin" compress "$work/small" -o "$work/small-out" --level 6
  done
  # Small jobs interleaved, run by run (many runs: a job of milliseconds is noisier than the
  # big ones, and drift must fall on every command alike).
  rm -rf "$work/one-out"
  python3 "$here/interleave.py" $(( runs * 30 )) one-mb \
    "pigz -6 -p 2 -c" "pigz -6 -p 2 -c $work/one-mb" \
    "squeeze -6 -c (drop-in)" "$bin -6 -c $work/one-mb" \
    "squeeze compress" "$bin compress $work/one-mb -o $work/one-out --force" \
    "squeeze --version (start-up alone)" "$bin --version" >> "$results"
fi

if [[ $only != --no-levels ]]; then
  gzip_sizes "$work/sample" sample 1 2 3 4 5 6 7 8 9
  # Levels 6 and 1 of the whole file were sized with the ceiling, unless it did not run.
  if [[ $only == --levels-only ]]; then gzip_sizes "$work/file" file 1 2 3 4 5 6 7 8 9; else gzip_sizes "$work/file" file 2 3 4 5 7 8 9; fi
  for run in $(seq "$runs"); do
    for level in 1 2 3 4 5 6 7 8 9; do
      echo "one-machine: levels, level $level, run $run/$runs" >&2
      for input in sample file; do
        time_it "levels-$input" "pigz -$level -p 2" "$work/pigz.gz" -- bash -c "pigz -$level -p 2 -c '$work/$input' > '$work/pigz.gz'"
        time_it "levels-$input" "squeeze compress --level $level" "$work/out" -- "$bin" compress "$work/$input" -o "$work/out" --level "$level"
      done
    done
  done
fi

python3 - "$results" "$size" "$(stat -c %s "$work/sample")" "$(du -sb "$small" | cut -f1)" "$runs" <<'PY'
import sys, statistics, collections
path, file_bytes, sample_bytes, small_bytes, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
times, sizes = collections.defaultdict(list), {}
for line in open(path):
    group, row, seconds, size = line.rstrip("\n").split("\t")
    if group == "gzip": sizes[row] = int(size); continue
    times[(group, row)].append(float(seconds))
    sizes[(group, row)] = int(size)
def med(key): return statistics.median(times[key]) if key in times else None
out = ["## One machine at its limit", "",
       f"`bench/one-machine.sh`: {runs} run(s), interleaved, medians; everything in memory. The ceiling is the same engine "
       "run as two whole-file processes on the two halves of mixed.cat at once (libdeflate-gzip -6; igzip -3 for level 1): "
       "\"of the ceiling\" is its time over squeeze's (1.00 would be no overhead at all). Sizes are against `gzip -N` of the whole file.", ""]
if any(k[0] == "ceiling" for k in times):
    out += ["| level | run | median s | MB/s | of the ceiling | vs pigz -N -p 2 | size vs gzip -N |", "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for level, ceiling in ((6, "ceiling -6: libdeflate-gzip -6 on each half at once"), (1, "ceiling -1: igzip -3 on each half at once")):
        c, p = med(("ceiling", ceiling)), med(("ceiling", f"pigz -{level} -p 2"))
        for row in (ceiling, f"squeeze compress --level {level}", f"squeeze -{level} -c (drop-in)", f"pigz -{level} -p 2"):
            t = med(("ceiling", row))
            if t is None: continue
            rel = sizes[("ceiling", row)] / sizes[f"file -{level}"] - 1
            out.append(f"| {level} | {row} | {t:.2f} | {file_bytes / t / 1e6:.0f} | {c / t:.2f} | {p / t:.2f}x | {rel * 100:+.2f}% |")
    out += ["", "ISA-L's own threads, the peer a user might pick for speed (its levels are not gzip's: compare the sizes):", "",
            "| run | median s | MB/s | vs pigz -1 -p 2 | size vs gzip -1 |", "| --- | ---: | ---: | ---: | ---: |"]
    p1 = med(("ceiling", "pigz -1 -p 2"))
    for level in range(4):
        t = med(("peers", f"igzip -{level} -T 2"))
        rel = sizes[("peers", f"igzip -{level} -T 2")] / sizes["file -1"] - 1
        out.append(f"| igzip -{level} -T 2 | {t:.2f} | {file_bytes / t / 1e6:.0f} | {p1 / t:.2f}x | {rel * 100:+.2f}% |")
    x, s = med(("small", "xargs -P 2 gzip -6 (per file)")), med(("small", "squeeze compress"))
    out += ["", "Small jobs: a 1 MB file (interleaved run by run, medians of many runs) and the small tree in memory (goal: 2.5x xargs -P 2 gzip -6).", "",
            "| job | run | median | vs the reference |", "| --- | --- | ---: | ---: |"]
    one = {row: med(("one-mb", row)) for (g, row) in times if g == "one-mb"}
    pigz1 = one.get("pigz -6 -p 2 -c")
    for command, t in one.items():
        versus = f"{t / pigz1:.2f}x pigz's time" if pigz1 else "-"
        out.append(f"| 1 MB file | {command} | {t * 1000:.1f} ms | {versus} |")
    out.append(f"| small tree ({small_bytes / 1e6:.0f} MB) | xargs -P 2 gzip -6 | {x:.2f} s | |")
    out.append(f"| small tree | squeeze compress | {s:.2f} s | {x / s:.2f}x faster |")
if any(k[0].startswith("levels-") for k in times):
    out += ["", "Every level against pigz at the same level (goal: at least 1.0x, size at most gzip -N):", "",
            "| level | sample: pigz s | squeeze s | vs pigz | size vs gzip -N | file: pigz s | squeeze s | vs pigz | size vs gzip -N |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for level in range(1, 10):
        cells = []
        for input in ("sample", "file"):
            p, s = med((f"levels-{input}", f"pigz -{level} -p 2")), med((f"levels-{input}", f"squeeze compress --level {level}"))
            rel = sizes[(f"levels-{input}", f"squeeze compress --level {level}")] / sizes[f"{input} -{level}"] - 1
            cells += [f"{p:.2f}", f"{s:.2f}", f"{p / s:.2f}x", f"{rel * 100:+.2f}%"]
        out.append(f"| {level} | " + " | ".join(cells) + " |")
print("\n".join(out))
PY
