#!/usr/bin/env bash
# The compose test (`make compose-test`): the project's real compose/compose.yaml, run with
# docker compose where a Docker engine is present, else with podman-compose.
#   1. a coordinator and 3 workers; a 120 MiB folder submitted from the host CLI; every output
#      checked with gzip -t and byte-compared after gunzip -c;
#   2. scaled to 5 workers while a second job runs; `squeeze status` shows the new workers took work;
#   3. one worker container stopped (podman stop) and another killed (podman kill) mid-job;
#      the job still completes correctly;
#   4. everything torn down: no containers, networks or temporaries left.
# Both coordinator ports use CURVE: keys are made for the test (compose/keys.sh) and the host
# client uses them; a client without keys or with an unknown key is refused.
# With --measure it instead times one job with 1, 3 and 5 worker containers.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
measure=""
[[ ${1:-} == --measure ]] && measure=1

say() { echo "compose-test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

bin=$(swift build -c release --show-bin-path)/squeeze
[[ -x $bin ]] || fail "no release binary at $bin (make release)"
if docker info >/dev/null 2>&1; then
  engine=docker
  compose=(docker compose)
else
  engine=podman
  # No pod: with one, scaled replicas cannot be stopped on their own.
  compose=("$repo/.build/compose-venv/bin/podman-compose" --in-pod false)
fi
project=squeeze-test-$$
work=$(mktemp -d "${TMPDIR:-/tmp}/squeeze-compose.XXXXXX")
data=$work/data
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
keys=$work/keys
export SQUEEZE_DATA=$data SQUEEZE_PORT=$port SQUEEZE_IMAGE=${SQUEEZE_IMAGE:-squeeze:latest} SQUEEZE_KEYS=$keys
# The host's client uses the client key compose/keys.sh makes, as `make compose-submit` does.
export SQUEEZE_KEY=$keys/client.key SQUEEZE_COORDINATOR_KEY=$keys/coordinator.pub
endpoint=tcp://127.0.0.1:$port
dc() { "${compose[@]}" -p "$project" -f "$repo/compose/compose.yaml" "$@"; }

# podman-compose 1.6 `down` only knows the replicas the file declares, not those added with
# --scale; so every container of the project is stopped and removed first, then `down` removes
# the network. docker compose needs none of this.
stop_all() {
  if [[ $engine == podman ]]; then
    local ids
    ids=$(podman ps -a -q --filter "label=io.podman.compose.project=$project")
    if [[ -n $ids ]]; then
      # shellcheck disable=SC2086
      podman stop -t 15 $ids >/dev/null 2>&1
      # shellcheck disable=SC2086
      podman rm -f $ids >/dev/null 2>&1
    fi
  fi
  dc down -t 15 >"$work/down.log" 2>&1
}

teardown() {
  set +e
  stop_all
  local left
  left=$($engine ps -a --format '{{.Names}}' | grep -c "^$project" || true)
  [[ $left -eq 0 ]] || say "containers left after down: $left"
  rm -rf "$work" 2>/dev/null || $engine unshare rm -rf "$work" 2>/dev/null
}
trap teardown EXIT

# The data: 120 MiB of text-like files in 60 files of 2 MiB, owned by the containers' uid.
mkdir -p "$data"
python3 - "$data/set" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(7)
words = [w.strip() for w in open("/usr/share/dict/words")] if os.path.exists("/usr/share/dict/words") else \
        ["squeeze", "gzip", "block", "worker", "coordinator", "deflate", "stream", "folder", "podman", "compose"]
base = " ".join(rng.choice(words) + ("\n" if rng.random() < 0.1 else "") for _ in range(250_000)).encode()
base += os.urandom(len(base) // 8)
for i in range(60):
    path = os.path.join(root, f"part-{i % 6}", f"file-{i}.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        size, offset = 2 << 20, (i * 7919) % len(base)
        f.write(f"file {i}\n".encode())
        written = 0
        while written < size:
            chunk = base[offset:offset + size - written]
            f.write(chunk)
            written += len(chunk)
            offset = 0
PY
chown -R 10001:10001 "$data" 2>/dev/null || chmod -R a+rwX "$data"
bytes=$(du -sb "$data/set" | cut -f1)
bash "$repo/compose/keys.sh" "$bin" "$keys"
say "engine $engine, project $project, client port $port, $bytes bytes of data"

status_json() { "$bin" status --coordinator "$endpoint" --json 2>/dev/null; }
workers_count() { status_json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))' 2>/dev/null || echo 0; }
wait_workers() {
  for _ in $(seq 120); do
    [[ $(workers_count) -eq $1 ]] && return 0
    sleep 0.5
  done
  dc logs >&2 || true
  fail "expected $1 workers, have $(workers_count)"
}
verify() {
  local source=$1 output=$2 n=0
  while IFS= read -r -d '' f; do
    gzip -t "$output/$f.gz" || fail "gzip -t: $output/$f.gz"
    gunzip -c "$output/$f.gz" | cmp -s - "$source/$f" || fail "content differs: $f"
    n=$((n + 1))
  done < <(cd "$source" && find . -type f -print0)
  local outs temps
  outs=$(find "$output" -type f -name '*.gz' | wc -l)
  temps=$(find "$output" -name '.squeeze-tmp-*' | wc -l)
  [[ $outs -eq $n ]] || fail "$output: $outs outputs for $n files"
  [[ $temps -eq 0 ]] || fail "$output: $temps temporaries left"
  say "verified $n outputs in $output"
}
# Waits until a background submit's JSON progress passes a fraction of the bytes.
wait_progress() {
  local file=$1 fraction=$2
  for _ in $(seq 600); do
    python3 - "$file" "$fraction" <<'PY' && return 0
import json, sys
done = total = 0
for line in open(sys.argv[1]):
    try: event = json.loads(line)
    except ValueError: continue
    if event.get("event") == "progress": done, total = event["bytesDone"], event["bytes"]
    if event.get("event") == "finished": sys.exit(1)
sys.exit(0 if total and done / total >= float(sys.argv[2]) else 1)
PY
    sleep 0.1
  done
  fail "job did not reach $fraction of its bytes"
}

initial=3
[[ -n $measure ]] && initial=1  # measured while scaling up: podman-compose does not scale down
say "starting a coordinator and $initial workers"
dc up -d --scale worker=$initial >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }
wait_workers $initial
# The compose file's healthchecks (squeeze health) pass in every container.
if [[ $engine == podman ]]; then
  # Without systemd podman does not schedule healthchecks; run each once by hand.
  for container in $(podman ps --format '{{.Names}}' | grep "^$project"); do
    podman healthcheck run "$container" >/dev/null 2>&1 || fail "healthcheck of $container"
  done
else
  for _ in $(seq 60); do
    unhealthy=$(docker ps --filter "label=com.docker.compose.project=$project" --format '{{.Status}}' | grep -vc '(healthy)' || true)
    [[ $unhealthy -eq 0 ]] && break
    sleep 1
  done
  [[ $unhealthy -eq 0 ]] || fail "$unhealthy containers not healthy"
fi
say "healthchecks pass"
# CURVE: a client without keys, or with a key not in the allow-list, gets nothing.
env -u SQUEEZE_KEY -u SQUEEZE_COORDINATOR_KEY "$bin" status --coordinator "$endpoint" >/dev/null 2>&1 \
  && fail "a client without keys got a status"
"$bin" keygen stranger -o "$work" >/dev/null
SQUEEZE_KEY=$work/stranger.key "$bin" status --coordinator "$endpoint" >/dev/null 2>&1 \
  && fail "a client with an unknown key got a status"
refused=$(status_json | python3 -c 'import json,sys; print(json.load(sys.stdin).get("refusedConnections", 0))')
[[ $refused -ge 2 ]] || fail "the coordinator counted $refused refused connections, expected at least 2"
say "clients without keys or with an unknown key are refused ($refused refused connections)"

if [[ -n $measure ]]; then
  for n in 1 3 5; do
    dc up -d --scale worker=$n >>"$work/up.log" 2>&1
    wait_workers "$n"
    start=$(date +%s.%N)
    "$bin" submit /data/set -o "/data/measure-$n" --coordinator "$endpoint" >/dev/null
    end=$(date +%s.%N)
    awk -v n="$n" -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN { printf "%d worker containers: %.2f s, %.1f MB/s\n", n, e - s, b / (e - s) / 1e6 }'
  done
  exit 0
fi

say "job 1: 3 workers, submitted from the host"
"$bin" submit /data/set --coordinator "$endpoint" >"$work/job1.out" || { cat "$work/job1.out" >&2; fail "job 1"; }
verify "$data/set" "$data/set.squeezed"

say "job 2: scaling to 5 workers while it runs"
before=$(status_json | python3 -c 'import json,sys; print(" ".join(w["workerID"] for w in json.load(sys.stdin)["workers"]))')
"$bin" submit /data/set -o /data/job2 --level 9 --json --coordinator "$endpoint" >"$work/job2.out" &
job2=$!
wait_progress "$work/job2.out" 0.05
dc up -d --scale worker=5 >>"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "scale to 5"; }
new_took_work=""
for _ in $(seq 300); do
  # Prints "<workers> <new workers that finished an item>".
  took=$(status_json | python3 -c '
import json, sys
before = set(sys.argv[1].split())
workers = json.load(sys.stdin)["workers"]
busy_new = [w for w in workers if w["workerID"] not in before and w["itemsDone"] > 0]
print(len(workers), len(busy_new))' "$before" 2>/dev/null || echo "0 0")
  if [[ ${took% *} -eq 5 && ${took#* } -ge 1 ]]; then new_took_work=$took; break; fi
  kill -0 $job2 2>/dev/null || break
  sleep 0.2
done
wait $job2 || fail "job 2 exited non-zero"
if [[ -z $new_took_work ]]; then
  "$bin" status --coordinator "$endpoint" >&2
  tail -2 "$work/job2.out" >&2
  fail "the new workers took no work during job 2 (workers before: $before)"
fi
say "5 workers registered, ${new_took_work#* } of the new ones took work"
relayed=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("event") == "finished": print(event.get("bytesRelayed", -1))' "$work/job2.out")
[[ $relayed == 0 ]] || fail "job 2: $relayed bytes passed through the coordinator; the workers share /data and should have used it"
say "job 2: no block passed through the coordinator (shared storage)"
"$bin" status --coordinator "$endpoint" >&2
verify "$data/set" "$data/job2"

say "job 3: one worker stopped and another killed mid-job"
"$bin" submit /data/set -o /data/job3 --level 9 --json --coordinator "$endpoint" >"$work/job3.out" &
job3=$!
wait_progress "$work/job3.out" 0.1
mapfile -t containers < <($engine ps --format '{{.Names}}' | grep "^$project" | grep worker | sort)
[[ ${#containers[@]} -ge 2 ]] || fail "expected worker containers, found: ${containers[*]}"
$engine stop -t 10 "${containers[0]}" >/dev/null
say "stopped ${containers[0]}"
$engine kill "${containers[1]}" >/dev/null
say "killed ${containers[1]}"
wait $job3 || { cat "$work/job3.out" | tail -3 >&2; fail "job 3 exited non-zero"; }
verify "$data/set" "$data/job3"

say "tearing down"
started=$(date +%s)
stop_all || { cat "$work/down.log" >&2; fail "compose down"; }
say "stopped in $(( $(date +%s) - started )) s"
left=$($engine ps -a --format '{{.Names}}' | grep -c "^$project" || true)
[[ $left -eq 0 ]] || fail "$left containers left"
networks=$($engine network ls --format '{{.Name}}' | grep -c "^$project" || true)
[[ $networks -eq 0 ]] || fail "$networks networks left"
temps=$(find "$data" -name '.squeeze-tmp-*' | wc -l)
[[ $temps -eq 0 ]] || fail "$temps temporaries left"
say "passed"
