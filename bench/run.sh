#!/usr/bin/env bash
# Squeeze benchmark harness: squeeze (embedded and as a TCP cluster) against gzip, pigz and
# xargs-gzip on corpora built from real files of this machine, interleaved and repeated in one
# run, medians reported. Writes the table to docs/benchmarks.md.
#
#   bench/run.sh [--quick] [--runs N] [--corpus DIR] [--work DIR] [--no-write]
#
# --quick: the small corpora of corpus.sh --quick and one run (about a minute).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=""
runs=3
corpus_dir=""
work=${TMPDIR:-/tmp}/squeeze-bench
write_docs=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1 ;;
    --runs) runs=$2; shift ;;
    --corpus) corpus_dir=$2; shift ;;
    --work) work=$2; shift ;;
    --no-write) write_docs="" ;;
    *) echo "usage: bench/run.sh [--quick] [--runs N] [--corpus DIR] [--work DIR] [--no-write]" >&2; exit 2 ;;
  esac
  shift
done
corpus_dir=${corpus_dir:-${TMPDIR:-/tmp}/squeeze-corpus${quick:+-quick}}
corpus_script=${SQUEEZE_CORPUS_SCRIPT:-$repo/../shared/bench/corpus.sh}

# --- tools -------------------------------------------------------------------------------
need=()
command -v gzip >/dev/null || need+=(gzip)
command -v pigz >/dev/null || need+=(pigz)
command -v igzip >/dev/null || need+=(isal)
command -v libdeflate-gzip >/dev/null || need+=(libdeflate-tools)
command -v python3 >/dev/null || need+=(python3)
[[ -x /usr/bin/time ]] || need+=(time)
if [[ ${#need[@]} -gt 0 ]]; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  echo "bench: installing ${need[*]}" >&2
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
[[ -f $corpus_script ]] || { echo "bench: corpus script not found at $corpus_script (set SQUEEZE_CORPUS_SCRIPT)" >&2; exit 1; }

echo "bench: building release" >&2
(cd "$repo" && make -s release >/dev/null)
bin=$(cd "$repo" && swift build -c release --show-bin-path)/squeeze

echo "bench: corpora in $corpus_dir" >&2
bash "$corpus_script" "$corpus_dir" ${quick:+--quick} >&2
mixed=$corpus_dir/mixed
small=$corpus_dir/small
cat_file=$corpus_dir/mixed.cat

# ext4 skips inodes freed in the last ~30 s when it allocates new ones (recently_deleted),
# which makes file creation slow right after a big delete. So nothing is deleted while
# measuring: every run writes to a folder of its own, removed at the end; and leftovers of an
# earlier run are removed before the 30 s wait.
if [[ -e $work ]]; then
  rm -rf "$work"
  sync
  echo "bench: waiting 30 s after removing $work" >&2
  sleep 30
fi
mkdir -p "$work"
# mixed.cat alone in a folder (a hard link), for the cluster, which takes folders.
cat_dir=$work/cat
mkdir -p "$cat_dir"
ln "$cat_file" "$cat_dir/mixed.cat" 2>/dev/null || cp "$cat_file" "$cat_dir/mixed.cat"
# The mixed tree's folders without the files at its root (hard links): a root of folders only,
# as a project folder often is, so the coordinator lists a folder to find a file for the
# storage probe and plans what it finds there (the "coordinator per file" table).
folders=$work/mixed-folders
mkdir -p "$folders"
find "$mixed" -mindepth 1 -maxdepth 1 -type d -exec cp -al {} "$folders/" \; 2>/dev/null \
  || find "$mixed" -mindepth 1 -maxdepth 1 -type d -exec cp -a {} "$folders/" \;
results=$work/results.tsv
: > "$results"
pids=()
extra_cleanup=""
floor_copy=""
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work" ${extra_cleanup:+"$extra_cleanup"} ${floor_copy:+"$floor_copy"}
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
bytes_of() { du -sb "$1" | cut -f1; }
# Bytes of the .gz files under $1 made after the marker (a copy's own .gz files are input).
gz_bytes() { find "$1" -type f -name '*.gz' -cnewer "$work/marker" -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
slot=0
# Sets $out to a fresh folder path for the next output.
next_out() { slot=$((slot + 1)); out="$work/out-$slot"; }
hwm_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# CPU seconds (user + system) the coordinator at clients endpoint $1 has used so far, to the
# microsecond (from its status; /proc/PID/stat rounds to 10 ms, a fifth of a shared-storage
# job's whole cost), or from /proc/$2/stat if its status does not say.
coordinator_cpu() {
  "$bin" status --coordinator "$1" --json | python3 -c 'import json,sys; v=json.load(sys.stdin).get("coordinatorCPUSeconds"); print("" if v is None else v)' 2>/dev/null \
    | grep . || awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$2/stat"
}

# record CASE CORPUS SECONDS OUTPUT_BYTES COORD_RSS_KIB WORKER_RSS_KIB [COORD_CPU_SECONDS]
# Each run also goes to stderr, so a log of the bench keeps the spread behind the medians.
record() {
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:--}" >> "$results"
  echo "bench: $2 | $1 | ${3} s | peak RSS ${5} KiB${7:+ | coordinator CPU ${7} s}" >&2
}

# A fresh copy of a tree for the tools that write next to their input (untimed); sets $copy.
fresh_copy() {
  next_out
  copy=$out
  cp -a "$1" "$copy"
  sync
  sleep 1
  touch "$work/marker"
}

# This machine drops page cache that has sat unused for about a minute (its host runs DAMON's
# proactive reclaim: `pageout` of unmapped pages idle for 60 s; see
# /sys/kernel/mm/damon/admin), so the warm-up before the runs does not hold through them: the
# later runs read part of mixed.cat from disk again, which doubled the level-0 ceiling's time
# (0.35 s in the first run, 0.82 and 0.81 in the next two) and raised the remote rows' CPU.
# So each row's input is read once more, untimed, right before the row.
# The same host backs a guest page only when it is first touched and takes back freed ones, so
# a page the machine has not used lately costs a host fault: as the outputs of earlier rows
# fill the page cache, later runs get fresh pages where the first run got reused ones (writing
# 1 GB into /dev/shm: 0.6 s of system time on reused pages, 2.2 s on fresh). Squeeze's own
# outputs leave the page cache as they are written (docs/architecture.md, "Memory bounds");
# the other tools' outputs and the copies stay, as they would on a user's machine.
warm() {
  case $1 in
    file) cat "$cat_file" > /dev/null ;;
    mixed | pipe | large) find "$mixed" -type f -print0 | xargs -0 cat > /dev/null ;;
    small | tar-small) find "$small" -type f -print0 | xargs -0 cat > /dev/null ;;
    unzip) cat "$unzip_input" > /dev/null ;;
    # In /dev/shm nothing is dropped (there is no swap); on disk the tree is read again.
    many-*) [[ $many_root == /dev/shm/* ]] || find "$many_root/${1#many-}" -type f -print0 | xargs -0 cat > /dev/null ;;
  esac
}

# timed CASE CORPUS OUTPUT_DIR_OR_FILE -- command...: runs under /usr/bin/time for peak RSS.
timed() {
  local name=$1 corpus=$2 output=$3; shift 4
  local start end rss
  warm "$corpus"
  start=$(now)
  # A copy's marker was set by fresh_copy; a fresh output folder's outputs are all new.
  [[ -e $output ]] || touch "$work/marker"
  # gzip exits 2 on warnings (for example a file with several hard links); not a failure here.
  /usr/bin/time -f '%M' -o "$work/rss" "$@" > "$work/command.out" || [[ $? -eq 2 ]]
  end=$(now)
  rss=$(tail -1 "$work/rss")
  local size
  if [[ -d $output ]]; then size=$(gz_bytes "$output"); else size=$(stat -c %s "$output"); fi
  record "$name" "$corpus" "$(elapsed "$start" "$end")" "$size" "$rss" "-"
}

# The cluster: a coordinator and two single-slot workers over TCP loopback, fresh per run,
# the workers in the given storage mode (shared: they read and write the files themselves;
# remote: every block passes through the coordinator). Only the job is timed (submit until its
# summary), as a user of a running cluster sees it; the coordinator's CPU time over the job
# comes from its status (getrusage, to the microsecond). A seventh argument, `no-verify`, runs
# the coordinator with --no-verify: what the result check costs is the difference; `no-state`
# runs it without a journal: what journaling costs is the difference; `warm` times the
# coordinator's second job, after an untimed first one of the same source: what a long-running
# coordinator costs per GB once its buffers and threads are in place (a fresh coordinator's
# first job also pays for faulting them in); `three` adds a third worker (three principals:
# a worker, not the coordinator, audits what two others vouched for).
cluster() {
  local name=$1 corpus=$2 source=$3 level=$4 storage=$5 out_root=${6:-} option=${7:-}
  local coord_flags=()
  [[ $option == no-verify ]] && coord_flags+=(--no-verify)
  # Each run starts with an empty journal (the product's default: jobs are journaled).
  rm -rf "$work/coordinator-state"
  if [[ $option == no-state ]]; then
    coord_flags+=(--no-state)
  else
    coord_flags+=(--state "$work/coordinator-state")
  fi
  local out
  next_out
  # The routing ceiling writes to memory (/dev/shm), so the disk is not what it measures.
  [[ -n $out_root ]] && out=$out_root/squeeze-bench-out-$slot
  "$bin" coordinator --listen tcp://127.0.0.1:0 --workers-listen tcp://127.0.0.1:0 "${coord_flags[@]}" \
    > "$work/coord.out" 2> "$work/coord.err" &
  local coord=$!; pids+=("$coord")
  for _ in $(seq 400); do grep -q listening "$work/coord.out" && break; sleep 0.05; done
  if ! grep -q listening "$work/coord.out"; then
    echo "bench: the coordinator did not start:" >&2
    cat "$work/coord.err" >&2
    exit 1
  fi
  local clients workers
  clients=$(grep -o 'clients=[^ ]*' "$work/coord.out" | cut -d= -f2)
  workers=$(grep -o 'workers=[^ ]*' "$work/coord.out" | cut -d= -f2)
  "$bin" worker --coordinator "$workers" --slots 1 --id w1 --storage "$storage" 2> "$work/w1.err" & local w1=$!; pids+=("$w1")
  "$bin" worker --coordinator "$workers" --slots 1 --id w2 --storage "$storage" 2> "$work/w2.err" & local w2=$!; pids+=("$w2")
  local worker_pids=("$w1" "$w2")
  if [[ $option == three ]]; then
    "$bin" worker --coordinator "$workers" --slots 1 --id w3 --storage "$storage" 2> "$work/w3.err" & worker_pids+=($!); pids+=($!)
  fi
  for _ in $(seq 100); do
    [[ $("$bin" status --coordinator "$clients" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))') == "${#worker_pids[@]}" ]] && break
    sleep 0.1
  done
  local start end
  if [[ $option == warm ]]; then
    local first_out=${out_root:-$work}/warm-$slot
    "$bin" submit "$source" -o "$first_out" --coordinator "$clients" --level "$level" > /dev/null 2> "$work/submit.err" \
      || { echo "bench: the untimed first job failed:" >&2; tail -5 "$work/submit.err" >&2; exit 1; }
    # In memory (/dev/shm), the first job's output would crowd the timed one's. Removed here,
    # its pages are free for the timed job, which so writes into recently used pages: on this
    # project's VMs cheaper than the fresh ones a first job gets (see warm() above).
    [[ -n $out_root ]] && rm -rf "$first_out"
  fi
  warm "$corpus"
  # The rows before wrote to disk: their write-back must not run during this one.
  sync
  touch "$work/marker"
  local cpu_before cpu_after
  cpu_before=$(coordinator_cpu "$clients" "$coord")
  # Timed from here: the CPU reading above starts a client and a Python, which are not the job.
  start=$(now)
  if ! "$bin" submit "$source" -o "$out" --coordinator "$clients" --level "$level" > "$work/submit.out" 2> "$work/submit.err"; then
    echo "bench: squeeze submit failed:" >&2
    tail -5 "$work/submit.err" "$work/coord.err" >&2
    exit 1
  fi
  end=$(now)
  cpu_after=$(coordinator_cpu "$clients" "$coord")
  local rss_coord rss_w
  rss_coord=$(hwm_kib "$coord")
  rss_w=$(( $(hwm_kib "$w1") > $(hwm_kib "$w2") ? $(hwm_kib "$w1") : $(hwm_kib "$w2") ))
  kill -TERM "${worker_pids[@]}" "$coord"
  wait "${worker_pids[@]}" "$coord" 2>/dev/null || true
  pids=()
  record "$name" "$corpus" "$(elapsed "$start" "$end")" "$(gz_bytes "$out")" "$rss_coord" "$rss_w" "$(elapsed "$cpu_before" "$cpu_after")"
  [[ -n $out_root ]] && rm -rf "$out"
  return 0
}

# Warm the page cache so every contender reads from memory.
cat "$cat_file" > /dev/null
find "$mixed" "$small" -type f -print0 | xargs -0 cat > /dev/null

# The way back is timed on mixed.cat as gzip -6 makes it (one member, untimed here).
unzip_input=$work/mixed.cat.gz
gzip -6 -c "$cat_file" > "$unzip_input"

echo "bench: $runs run(s), interleaved" >&2
for run in $(seq "$runs"); do
  echo "bench: run $run/$runs" >&2
  # --- the mixed corpus as one file: the engine against pigz, default level and level 1 ---
  for level in 6 1; do
    next_out; mkdir -p "$out"
    timed "gzip -$level (one stream)" file "$out/mixed.gz" -- bash -c "gzip -$level -c '$cat_file' > '$out/mixed.gz'"
    next_out; mkdir -p "$out"
    timed "pigz -$level -p 2 (one stream)" file "$out/mixed.gz" -- bash -c "pigz -$level -p 2 -c '$cat_file' > '$out/mixed.gz'"
    next_out
    timed "squeeze compress --level $level (one file)" file "$out" -- "$bin" compress "$cat_file" -o "$out" --level "$level"
  done
  cluster "squeeze cluster -6, shared storage (coordinator + 2 workers, TCP)" file "$cat_dir" 6 shared
  cluster "squeeze cluster -6, remote (coordinator + 2 workers, TCP)" file "$cat_dir" 6 remote
  cluster "squeeze cluster -6, shared storage, --no-verify (coordinator + 2 workers, TCP)" file "$cat_dir" 6 shared "" no-verify
  cluster "squeeze cluster -6, remote, --no-verify (coordinator + 2 workers, TCP)" file "$cat_dir" 6 remote "" no-verify
  cluster "squeeze cluster -6, shared storage, second job (coordinator + 2 workers, TCP)" file "$cat_dir" 6 shared "" warm
  cluster "squeeze cluster -6, remote, second job (coordinator + 2 workers, TCP)" file "$cat_dir" 6 remote "" warm
  # --- mixed corpus ---
  next_out; mkdir -p "$out"
  timed "gzip -6 (one stream)" mixed "$out/mixed.gz" -- bash -c "gzip -6 -c '$cat_file' > '$out/mixed.gz'"
  next_out; mkdir -p "$out"
  timed "pigz -6 -p 2 (one stream)" mixed "$out/mixed.gz" -- bash -c "pigz -6 -p 2 -c '$cat_file' > '$out/mixed.gz'"
  next_out
  timed "squeeze compress" mixed "$out" -- "$bin" compress "$mixed" -o "$out" --level 6
  cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" mixed "$mixed" 6 shared
  cluster "squeeze cluster, remote (coordinator + 2 workers, TCP)" mixed "$mixed" 6 remote
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" mixed "$mixed" 6 shared "" three
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" mixed-folders "$folders" 6 shared "" three
  fresh_copy "$mixed"
  timed "xargs -P 2 gzip -6 (per file)" mixed "$copy" -- bash -c "cd '$copy' && find . -type f -print0 | xargs -0 -P 2 -n 64 gzip -6 -k -f"
  # --- drop-in habits: a folder through tar into one stream, and the way back ---
  next_out; mkdir -p "$out"
  timed "tar c | pigz -6 -p 2" pipe "$out/mixed.tgz" -- bash -c "tar -C '$mixed' -cf - . | pigz -6 -p 2 > '$out/mixed.tgz'"
  next_out; mkdir -p "$out"
  timed "tar c | squeeze" pipe "$out/mixed.tgz" -- bash -c "tar -C '$mixed' -cf - . | '$bin' > '$out/mixed.tgz'"
  next_out; mkdir -p "$out"
  timed "tar -I 'pigz -6 -p 2' -cf" pipe "$out/mixed.tgz" -- tar -I "pigz -6 -p 2" -C "$(dirname "$mixed")" -cf "$out/mixed.tgz" "$(basename "$mixed")"
  next_out; mkdir -p "$out"
  timed "squeeze compress --tar" pipe "$out/mixed.tgz" -- "$bin" compress "$mixed" --tar -o "$out/mixed.tgz" --level 6
  timed "gzip -dc" unzip "$unzip_input" -- bash -c "gzip -dc < '$unzip_input' > /dev/null"
  timed "pigz -dc" unzip "$unzip_input" -- bash -c "pigz -dc < '$unzip_input' > /dev/null"
  timed "squeeze -dc" unzip "$unzip_input" -- bash -c "'$bin' -dc < '$unzip_input' > /dev/null"
  # --- small-file tree ---
  fresh_copy "$small"
  timed "pigz -6 -p 2 -r (per file)" small "$copy" -- pigz -6 -p 2 -r -k -f "$copy"
  fresh_copy "$small"
  timed "xargs -P 2 gzip -6 (per file)" small "$copy" -- bash -c "cd '$copy' && find . -type f -print0 | xargs -0 -P 2 -n 64 gzip -6 -k -f"
  next_out
  timed "squeeze compress" small "$out" -- "$bin" compress "$small" -o "$out" --level 6
  next_out
  timed "squeeze compress --no-journal" small "$out" -- "$bin" compress "$small" -o "$out" --level 6 --no-journal
  cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" small "$small" 6 shared
  cluster "squeeze cluster, remote (coordinator + 2 workers, TCP)" small "$small" 6 remote
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" small "$small" 6 shared "" three
  cluster "squeeze cluster, shared storage, --no-state (coordinator + 2 workers, TCP)" small "$small" 6 shared "" no-state
  next_out; mkdir -p "$out"
  timed "tar -I 'pigz -6 -p 2' -cf" tar-small "$out/small.tgz" -- tar -I "pigz -6 -p 2" -C "$(dirname "$small")" -cf "$out/small.tgz" "$(basename "$small")"
  next_out; mkdir -p "$out"
  timed "squeeze compress --tar" tar-small "$out/small.tgz" -- "$bin" compress "$small" --tar -o "$out/small.tgz" --level 6
  # --- routing ceiling: level 0, so what is measured is the coordinator and the transport ---
  shm=""
  [[ -d /dev/shm && $(df -k --output=avail /dev/shm | tail -1) -gt $(( $(du -sk "$mixed" | cut -f1) * 2 )) ]] && shm=/dev/shm
  # The floor under the shared ceiling's first job: one writer copying the same file into
  # /dev/shm pages in the state the job gets them. The workers write one output file, and
  # every write to a file holds its inode lock, so they take turns and cannot write much
  # faster than this (the copy also reads the file, which the workers do beside it). The copy is kept until the job is done, so the job gets pages of its own, not
  # the ones the copy freed (pages freed moments ago cost this VM less than ones not used
  # lately; see warm() above).
  floor_copy=""
  if [[ -n $shm ]]; then
    next_out; floor_copy=$shm/squeeze-bench-floor-$slot
    timed "routing ceiling floor: cp of the file into /dev/shm (one writer)" file "$floor_copy" -- cp "$cat_file" "$floor_copy"
  fi
  cluster "routing ceiling, shared storage (cluster, --level 0)" file "$cat_dir" 0 shared "$shm"
  [[ -n $floor_copy ]] && rm -f "$floor_copy"
  floor_copy=""
  cluster "routing ceiling, remote (cluster, --level 0)" file "$cat_dir" 0 remote "$shm"
  # The ceiling as a long-running coordinator routes, and without the result check (which at
  # level 0 is most of the workers' work: each verifier reads the source and the output again).
  cluster "routing ceiling, shared storage, second job (cluster, --level 0)" file "$cat_dir" 0 shared "$shm" warm
  cluster "routing ceiling, shared storage, --no-verify (cluster, --level 0)" file "$cat_dir" 0 shared "$shm" no-verify
done

# The level table: every level 1-9 against gzip and pigz at the same level, one run. On a
# sample of the mixed corpus (every fourth MiB of mixed.cat) and on the small tree, per file.
echo "bench: level table" >&2
sample=$work/mixed.sample
python3 - "$cat_file" "$sample" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as i, open(dst, "wb") as o:
    n = 0
    while chunk := i.read(1 << 20):
        if n % 4 == 0: o.write(chunk)
        n += 1
PY
levels=$work/levels.tsv
: > "$levels"
for level in 1 2 3 4 5 6 7 8 9; do
  for tool in gzip pigz squeeze; do
    next_out; mkdir -p "$out"
    start=$(now)
    case $tool in
      gzip) gzip -$level -n -c "$sample" > "$out/s.gz" ;;
      pigz) pigz -$level -n -p 2 -c "$sample" > "$out/s.gz" ;;
      squeeze) "$bin" compress "$sample" -o "$out" --level "$level" --json > "$work/levels.json"
               engine=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline()).get("engine", "?"))' "$work/levels.json") ;;
    esac
    end=$(now)
    size=$(find "$out" -name '*.gz' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    printf 'sample\t%s\t%s\t%s\t%s\t%s\n' "$level" "$tool" "$(elapsed "$start" "$end")" "$size" "${engine:--}" >> "$levels"
    engine=""
  done
  fresh_copy "$small"
  start=$(now)
  (cd "$copy" && find . -type f -print0 | xargs -0 -P 2 -n 64 gzip -$level -k -f) || [[ $? -eq 123 ]]
  end=$(now)
  printf 'small\t%s\tgzip\t%s\t%s\t-\n' "$level" "$(elapsed "$start" "$end")" "$(gz_bytes "$copy")" >> "$levels"
  next_out
  start=$(now)
  "$bin" compress "$small" -o "$out" --level "$level" > /dev/null
  end=$(now)
  printf 'small\t%s\tsqueeze\t%s\t%s\t-\n' "$level" "$(elapsed "$start" "$end")" "$(gz_bytes "$out")" >> "$levels"
done
sample_bytes=$(stat -c %s "$sample")

# Memory on a folder of several GiB: the mixed corpus six times over (hard links, so no disk
# space), one cluster run at level 6; what matters is peak RSS, which must not grow with the folder.
if [[ -z $quick ]]; then
  echo "bench: large folder for peak RSS" >&2
  large=$work/large
  mkdir -p "$large"
  for i in 1 2 3 4 5 6; do cp -al "$mixed" "$large/copy-$i"; done
  cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" large "$large" 6 shared
fi

# A million small files (bench/many-files.py: real bytes, 1,000 to a folder), against the first
# 20,000 of them: files per second must hold up, and the coordinator's peak RSS must not grow
# with the tree. In memory (/dev/shm) when it has room, so the disk's inode allocation is not
# what is measured; one run each, embedded and as a cluster. The first 200,000 and the million
# also go through a remote cluster, and the 200,000 through a shared one: what the coordinator
# costs per file in each mode (the "coordinator per file" table).
many_place="-"
many_bytes=""
if [[ -z $quick ]]; then
  echo "bench: 1,000,000 small files" >&2
  many_root=$work/many
  if [[ -d /dev/shm && $(df -k --output=avail /dev/shm | tail -1) -gt $(( 8 << 20 )) ]]; then
    many_root=/dev/shm/squeeze-bench-many-$$
    extra_cleanup=$many_root
  fi
  many_place=$([[ $many_root == /dev/shm/* ]] && echo "in memory (/dev/shm)" || echo "on disk ($work)")
  python3 "$repo/bench/many-files.py" "$many_root/m1m" 1000000
  mkdir -p "$many_root/m20k" "$many_root/m200k"
  for folder in $(ls "$many_root/m1m" | awk 'NR <= 20'); do cp -al "$many_root/m1m/$folder" "$many_root/m20k/"; done
  for folder in $(ls "$many_root/m1m" | awk 'NR <= 200'); do cp -al "$many_root/m1m/$folder" "$many_root/m200k/"; done
  # The same 20,000 files in one folder (hard links): a flat root is listed by the workers in
  # slices too, not by the coordinator (its cost per file would show here).
  python3 -c 'import os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
for folder in sorted(os.listdir(src)):
    for name in sorted(os.listdir(os.path.join(src, folder))):
        os.link(os.path.join(src, folder, name), os.path.join(dst, folder + "-" + name))' "$many_root/m20k" "$many_root/flat20k"
  many_bytes="m20k=$(bytes_of "$many_root/m20k") m200k=$(bytes_of "$many_root/m200k") m1m=$(bytes_of "$many_root/m1m") flat20k=$(bytes_of "$many_root/flat20k")"
  cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" "many-flat20k" "$many_root/flat20k" 6 shared "$many_root"
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" "many-flat20k" "$many_root/flat20k" 6 shared "$many_root" three
  cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" "many-m200k" "$many_root/m200k" 6 shared "$many_root"
  # With a third principal a worker audits, not the coordinator: its cost per file alone.
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" "many-m200k" "$many_root/m200k" 6 shared "$many_root" three
  cluster "squeeze cluster, remote (coordinator + 2 workers, TCP)" "many-m200k" "$many_root/m200k" 6 remote "$many_root"
  cluster "squeeze cluster, remote (coordinator + 2 workers, TCP)" "many-m1m" "$many_root/m1m" 6 remote "$many_root"
  for tree in m20k m1m; do
    next_out; out=$many_root/out-$slot
    timed "squeeze compress" "many-$tree" "$out" -- "$bin" compress "$many_root/$tree" -o "$out" --level 6
    rm -rf "$out"
    next_out; out=$many_root/out-$slot
    timed "squeeze compress --no-journal" "many-$tree" "$out" -- "$bin" compress "$many_root/$tree" -o "$out" --level 6 --no-journal
    rm -rf "$out"
    cluster "squeeze cluster, shared storage (coordinator + 2 workers, TCP)" "many-$tree" "$many_root/$tree" 6 shared "$many_root"
  done
  cluster "squeeze cluster, shared storage (coordinator + 3 workers, 3 principals, TCP)" "many-m1m" "$many_root/m1m" 6 shared "$many_root" three
  rm -rf "$many_root"
fi

mixed_bytes=$(bytes_of "$mixed")
small_bytes=$(bytes_of "$small")
mixed_files=$(find "$mixed" -type f | wc -l)
small_files=$(find "$small" -type f | wc -l)
folders_bytes=$(bytes_of "$folders")
folders_files=$(find "$folders" -type f | wc -l)
machine="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
versions="$(gzip --version | sed -n 1p); $(pigz --version 2>&1 | sed -n 1p); squeeze $(cd "$repo" && git rev-parse --short HEAD)"

table=$(python3 - "$results" "$mixed_bytes" "$small_bytes" "$runs" "$(stat -c %s "$cat_file")" "$many_place" "$mixed_files $small_files $folders_files $folders_bytes" "$many_bytes" <<'PY'
import sys, statistics, collections
path, mixed_bytes, small_bytes, runs, file_bytes, many_place = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
mixed_files, small_files, folders_files, folders_bytes = (int(n) for n in sys.argv[7].split())
many_bytes = {f"many-{k}": int(v) for k, v in (pair.split("=") for pair in sys.argv[8].split())}
rows = collections.OrderedDict()
for line in open(path):
    name, corpus, seconds, size, rss_c, rss_w, cpu_c = line.rstrip("\n").split("\t")
    row = rows.setdefault((corpus, name), {"t": [], "size": int(size), "rss_c": [], "rss_w": [], "cpu_c": []})
    if cpu_c != "-": row["cpu_c"].append(float(cpu_c))
    row["t"].append(float(seconds))
    if rss_c != "-": row["rss_c"].append(int(rss_c))
    if rss_w != "-": row["rss_w"].append(int(rss_w))
corpus_bytes = {"file": file_bytes, "mixed": mixed_bytes, "small": small_bytes, "large": mixed_bytes * 6}
many_files = {"many-m20k": 20_000, "many-m200k": 200_000, "many-m1m": 1_000_000}
# The coordinator per file: every cluster row over a tree whose file count is known.
file_counts = dict(many_files, mixed=mixed_files, small=small_files)
file_counts["many-flat20k"] = 20_000
file_counts["mixed-folders"] = folders_files
tree_bytes = dict(many_bytes, mixed=mixed_bytes, small=small_bytes)
tree_bytes["mixed-folders"] = folders_bytes
per_file_rows = [(key, row) for key, row in rows.items()
                 if key[0] in file_counts and key[0] in tree_bytes and row["cpu_c"] and "--no-" not in key[1] and "second job" not in key[1]]
many_rows = [(key, rows.pop(key)) for key in list(rows) if key[0] in many_files]
# Trees run only for the coordinator's cost per file: in that table alone.
for key in [key for key in rows if key[0] in ("many-flat20k", "mixed-folders")]: rows.pop(key)
habit_rows = [(key, rows.pop(key)) for key in list(rows) if key[0] in ("pipe", "tar-small", "unzip")]
def median(key): return statistics.median(rows[key]["t"]) if key in rows else None
ref = {
    "file": median(("file", "pigz -6 -p 2 (one stream)")),
    "mixed": median(("mixed", "pigz -6 -p 2 (one stream)")),
    "small": median(("small", "pigz -6 -p 2 -r (per file)")),
    "large": None,
}
xargs = {c: median((c, "xargs -P 2 gzip -6 (per file)")) for c in ("file", "mixed", "small", "large")}
gzip_size = {c: rows.get((c, "xargs -P 2 gzip -6 (per file)"), {}).get("size") for c in ("mixed", "small")}
gzip_size["large"] = gzip_size["mixed"] * 6 if gzip_size["mixed"] else None
stream = rows.get(("mixed", "gzip -6 (one stream)"), {}).get("size")
out = []
out.append("| corpus | tool | median s | MB/s | vs pigz | vs xargs-gzip | output bytes | size vs per-file gzip -6 | peak RSS |")
out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
def level_of(name):
    for level in range(10):
        if f"-{level} " in name + " " or f"--level {level} " in name + " ": return level
    return 6
for (corpus, name), row in rows.items():
    t = statistics.median(row["t"])
    mbs = corpus_bytes[corpus] / t / 1e6
    if corpus == "file" and name.startswith("routing"):
        out.append(f"| {corpus} | {name} | {t:.2f} | {mbs:.1f} | - | - | {row['size']:,} | - | |")
        continue
    if corpus == "file":
        # The one-file rows compare like with like: the same level of pigz and gzip.
        level = level_of(name)
        pigz_t = median(("file", f"pigz -{level} -p 2 (one stream)"))
        same_level_gzip = rows.get(("file", f"gzip -{level} (one stream)"), {}).get("size")
        vs_pigz = f"{pigz_t / t:.2f}x" if pigz_t else "-"
        rel = f"{(row['size'] / same_level_gzip - 1) * 100:+.2f}% vs gzip -{level}" if same_level_gzip else "-"
        rss = (f"coordinator {max(row['rss_c']) / 1024:.0f} MiB, worker {max(row['rss_w']) / 1024:.0f} MiB" if row["rss_w"]
               else f"{max(row['rss_c']) / 1024:.0f} MiB" if row["rss_c"] else "")
        out.append(f"| {corpus} | {name} | {t:.2f} | {mbs:.1f} | {vs_pigz} | - | {row['size']:,} | {rel} | {rss} |")
        continue
    vs_pigz = f"{ref[corpus] / t:.2f}x" if ref[corpus] else "-"
    vs_xargs = f"{xargs[corpus] / t:.2f}x" if xargs[corpus] else "-"
    size = row["size"]
    if name.startswith("routing"):
        rel = "-"
        vs_pigz = vs_xargs = "-"
    elif "one stream" in name:
        rel = f"{(size / stream - 1) * 100:+.2f}% vs one gzip -6 stream" if stream else "-"
    else:
        rel = f"{(size / gzip_size[corpus] - 1) * 100:+.2f}%" if gzip_size[corpus] else "-"
    rss = []
    if row["rss_w"]:
        rss.append(f"coordinator {max(row['rss_c']) / 1024:.0f} MiB, worker {max(row['rss_w']) / 1024:.0f} MiB")
    elif row["rss_c"]:
        rss.append(f"{max(row['rss_c']) / 1024:.0f} MiB")
    out.append(f"| {corpus} | {name} | {t:.2f} | {mbs:.1f} | {vs_pigz} | {vs_xargs} | {size:,} | {rel} | {', '.join(rss)} |")
# What the coordinator costs: its CPU seconds per GB of input in each cluster row, and how
# many level-6 worker cores one coordinator core could feed at that cost.
level6 = rows.get(("file", "squeeze cluster -6, shared storage (coordinator + 2 workers, TCP)"))
worker_core = file_bytes / statistics.median(level6["t"]) / 2 / 1e9 if level6 else None
out.append("")
out.append("### What the coordinator costs")
out.append("")
out.append("| corpus | cluster run | coordinator CPU s (median) | CPU s per GB | GB/s per coordinator core | level-6 worker cores one coordinator core feeds |")
out.append("| --- | --- | ---: | ---: | ---: | ---: |")
for (corpus, name), row in rows.items():
    if not row["cpu_c"]: continue
    cpu = statistics.median(row["cpu_c"])
    per_gb = cpu / (corpus_bytes[corpus] / 1e9)
    per_core = 1 / per_gb if per_gb > 0 else float("inf")
    feeds = f"{per_core / worker_core:.0f}" if worker_core else "-"
    out.append(f"| {corpus} | {name} | {cpu:.2f} | {per_gb:.3f} | {per_core:.2f} | {feeds} |")
if worker_core:
    out.append("")
    out.append(f"A level-6 worker core compresses about {worker_core * 1000:.0f} MB/s here (the shared-storage cluster on mixed.cat, two workers). "
               "The coordinator's CPU includes the scan, every message, the renames, fsyncs and syncfs (which charges the page writeback of the outputs to it), "
               "and in remote mode reading every block and writing every compressed block. "
               "Every other cluster row is a fresh coordinator's first job, which also pays for faulting in its buffers and starting its threads; "
               "the `second job` rows time the second job of one coordinator (the first, untimed, compresses the same file), as a long-running coordinator runs.")
if many_rows:
    out.append("")
    out.append(f"### A million small files ({many_place})")
    out.append("")
    out.append("| files | run | s | files/s | vs the 20,000-file run | coordinator peak RSS | coordinator CPU s |")
    out.append("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    rate_20k = {}
    for (corpus, name), row in many_rows:
        rate = many_files[corpus] / statistics.median(row["t"])
        if corpus == "many-m20k": rate_20k[name] = rate
        versus = f"{rate / rate_20k[name]:.2f}x" if corpus == "many-m1m" and name in rate_20k else "-"
        rss = f"{max(row['rss_c']) / 1024:.0f} MiB" if row["rss_c"] else "-"
        cpu = f"{statistics.median(row['cpu_c']):.1f}" if row["cpu_c"] else "-"
        out.append(f"| {many_files[corpus]:,} | {name} | {statistics.median(row['t']):.1f} | {rate:,.0f} | {versus} | {rss} | {cpu} |")
if per_file_rows:
    out.append("")
    out.append("### The coordinator per file")
    out.append("")
    out.append("Goals (#41): in shared storage at most 3 µs of coordinator CPU per file and 0.1 CPU-s per GB on every tree; in remote mode at most 1.0 CPU-s per GB.")
    out.append("With two workers (two principals) the coordinator itself audits one good verdict in 16 and one listing in 16, since no third principal can: "
               "the rows with three workers show the coordinator when a worker audits instead.")
    out.append("")
    out.append("| tree | files | GB | cluster run | coordinator CPU s | µs per file | CPU s per GB | files/s one coordinator core feeds |")
    out.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for (corpus, name), row in per_file_rows:
        files, gigabytes = file_counts[corpus], tree_bytes[corpus] / 1e9
        cpu = statistics.median(row["cpu_c"])
        out.append(f"| {corpus} | {files:,} | {gigabytes:.2f} | {name} | {cpu:.2f} | {cpu / files * 1e6:.1f} | {cpu / gigabytes:.2f} | {files / cpu:,.0f} |")
# Drop-in habits: a folder through tar into one stream against pigz, and decompression against
# gzip -dc and pigz -dc (the output bytes of a -dc row are the .gz read).
if habit_rows:
    habits = dict(habit_rows)
    def habit_median(key): return statistics.median(habits[key]["t"]) if key in habits else None
    pigz_pipe, gzip_d, pigz_d = habit_median(("pipe", "tar c | pigz -6 -p 2")), habit_median(("unzip", "gzip -dc")), habit_median(("unzip", "pigz -dc"))
    pigz_tar_small = habit_median(("tar-small", "tar -I 'pigz -6 -p 2' -cf"))
    out += ["", "### Drop-in habits: tar pipes and the way back", "",
            "| what | tool | median s | MB/s | vs pigz | vs gzip -dc | output bytes |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for (corpus, name), row in habit_rows:
        t = statistics.median(row["t"])
        size = {"pipe": corpus_bytes["mixed"], "tar-small": corpus_bytes.get("small", 0)}.get(corpus, file_bytes)
        versus_pigz = {"pipe": pigz_pipe, "tar-small": pigz_tar_small}.get(corpus, pigz_d)
        vs_pigz = f"{versus_pigz / t:.2f}x" if versus_pigz else "-"
        vs_gzip = f"{gzip_d / t:.2f}x" if corpus == "unzip" and gzip_d else "-"
        what = {"pipe": "mixed tree to one .tgz", "tar-small": "small tree to one .tgz"}.get(corpus, "mixed.cat.gz (gzip -6) decompressed to /dev/null")
        shown = f"{row['size']:,}" if corpus != "unzip" else "-"
        out.append(f"| {what} | {name.replace('|', chr(92) + '|')} | {t:.2f} | {size / t / 1e6:.1f} | {vs_pigz} | {vs_gzip} | {shown} |")
# What the journal costs: the same run with and without it (compress --no-journal, coordinator
# --no-state), side by side; per file where the file count is known.
every = dict(rows)
every.update(dict(many_rows))
pairs = [("small", "squeeze compress", "squeeze compress --no-journal", "small tree, embedded", None),
         ("small", "squeeze cluster, shared storage (coordinator + 2 workers, TCP)",
          "squeeze cluster, shared storage, --no-state (coordinator + 2 workers, TCP)", "small tree, cluster", None),
         ("many-m20k", "squeeze compress", "squeeze compress --no-journal", "20,000 files, embedded", 20_000),
         ("many-m1m", "squeeze compress", "squeeze compress --no-journal", "1,000,000 files, embedded", 1_000_000)]
journal = []
for corpus, with_name, without_name, label, files in pairs:
    if (corpus, with_name) not in every or (corpus, without_name) not in every: continue
    t_with, t_without = statistics.median(every[(corpus, with_name)]["t"]), statistics.median(every[(corpus, without_name)]["t"])
    per_file = f"{(t_with - t_without) / files * 1e6:+.1f} us" if files else "-"
    journal.append(f"| {label} | {t_with:.2f} | {t_without:.2f} | {t_with / t_without:.3f}x | {per_file} |")
if journal:
    out += ["", "### What the journal costs", "", "| run | with the journal s | without s | ratio | per file |", "| --- | ---: | ---: | ---: | ---: |"] + journal
print("\n".join(out))
PY
)

level_table=$(python3 - "$levels" "$sample_bytes" "$small_bytes" <<'PY'
import sys, collections
path, sample_bytes, small_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = collections.defaultdict(dict)
for line in open(path):
    corpus, level, tool, seconds, size, engine = line.rstrip("\n").split("\t")
    r[(corpus, int(level))][tool] = (float(seconds), int(size), engine)
out = ["| level | engine | sample: gzip -N s | pigz -N -p 2 s | squeeze s | squeeze MB/s | vs pigz | vs gzip | size vs gzip -N | small: xargs -P2 gzip -N s | squeeze s | vs xargs | size vs gzip -N |",
       "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for level in range(1, 10):
    s, m = r[("sample", level)], r[("small", level)]
    (gt, gs, _), (pt, ps, _), (st, ss, engine) = s["gzip"], s["pigz"], s["squeeze"]
    (xt, xs, _), (qt, qs, _) = m["gzip"], m["squeeze"]
    out.append(f"| {level} | {engine} | {gt:.2f} | {pt:.2f} | {st:.2f} | {sample_bytes / st / 1e6:.0f} | {pt / st:.2f}x | {gt / st:.2f}x | {(ss / gs - 1) * 100:+.2f}% "
               f"| {xt:.2f} | {qt:.2f} | {xt / qt:.2f}x | {(qs / xs - 1) * 100:+.2f}% |")
print("\n".join(out))
PY
)

echo "bench: the way back" >&2
way_back=$(bash "$repo/bench/way-back.sh" "$bin" "$cat_file" "$runs" "$repo/.build/py")
echo "bench: one machine at its limit" >&2
one_machine=$(bash "$repo/bench/one-machine.sh" "$bin" "$cat_file" "$small" "$runs" ${quick:+--no-levels})
# What waking a sleeping thread costs here: each message costs the coordinator a few wakes,
# part of its CPU per item, so the coordinator's rows compare across machines with this beside
# them (docs/benchmarks.md, "What an item costs the coordinator").
echo "bench: thread wake-ups" >&2
wakeups=$(bash "$repo/bench/wakeups.sh" 20000 3 | awk -F'|' 'NR > 2 { gsub(/^ +| +$/, "", $2); gsub(/ /, "", $5); printf "%s%s %s µs", sep, $2, $5; sep = "; " }')

report="# Benchmarks

Produced by \`make bench\` (\`bench/run.sh${quick:+ --quick}\`) on $(date -u +%Y-%m-%d), $runs run(s) per tool, interleaved; medians.

- Machine: $machine
- Tools: $versions
- Thread wake-ups (\`bench/wakeups.sh\`, CPU per wake-up, medians of 3 runs): $wakeups.
- Corpora (\`../shared/bench/corpus.sh\`${quick:+ --quick}): mixed $(find "$mixed" -type f | wc -l) files, $mixed_bytes bytes (\`mixed.cat\` is the same bytes as one file, for the single-stream tools); small $(find "$small" -type f | wc -l) files, $small_bytes bytes.
- The \`file\` rows compress \`mixed.cat\` as one file, at level 6 (the default) and level 1, each against gzip and \`pigz -p 2\` at the same level: the engine's headline. Elsewhere level 6 throughout except the routing-ceiling rows. MB/s is input bytes over wall time. \"vs pigz\" is pigz's time over the tool's (above 1 is faster than pigz): on the mixed corpus against \`pigz -6 -p 2\` on \`mixed.cat\`, on the small tree against \`pigz -r\`. Sizes are compared with per-file \`gzip -6\` (what xargs-gzip writes), the same shape of output as squeeze's.
- Every row reads its input from memory: it is read once, untimed, right before the row (this machine's host drops page cache left unused for a minute). In remote mode the coordinator reads the blocks of big files with O_DIRECT, so those reads come from the disk, cached or not (\`--buffered-reads\` would read them from memory, at a copy's CPU).
- The cluster rows time \`squeeze submit\` on a running coordinator with two single-slot workers over TCP loopback; peak RSS is VmHWM of each process.
- The routing-ceiling rows compress at level 0 into memory (/dev/shm), so what they measure is routing, not the engine or the disk. On this VM a page of memory not used lately costs a host fault when it is first written, so a fresh cluster's first job writes its output much slower than a job that reuses pages freed moments ago (the \`second job\` row). The \`floor\` row is one \`cp\` of the same file into /dev/shm, right before the first job and into pages in the same state: the workers write one output file and take turns on its inode lock, so that job cannot write much faster than this copy.

$table

## Levels

Every level against gzip and pigz at the same level, one run each (a first look, not
medians): on \`mixed.sample\` (every fourth MiB of \`mixed.cat\`, $(( sample_bytes / 1000000 )) MB) as one file,
and on the small tree file by file. \"size vs gzip -N\" is the level's promise: at most 0.

$level_table

$way_back

$one_machine
"
echo "$report"
if [[ -n $write_docs ]]; then
  # The measurements behind design choices (written by hand) stay below the new table.
  kept=""
  [[ -f "$repo/docs/benchmarks.md" ]] && kept=$(sed -n '/^## Design measurements/,$p' "$repo/docs/benchmarks.md")
  { printf '%s\n' "$report"; if [[ -n $kept ]]; then printf '\n%s\n' "$kept"; fi; } > "$repo/docs/benchmarks.md"
  echo "bench: wrote docs/benchmarks.md" >&2
fi
