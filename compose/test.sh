#!/usr/bin/env bash
# The compose test (`make compose-test`): the project's real compose/compose.yaml, driven by
# the very Makefile targets the README shows (make compose-up WORKERS=N, compose-submit,
# compose-status, compose-down), with docker compose where a Docker engine is present, else
# with podman-compose. It runs as its own compose project (SQUEEZE_PROJECT=squeeze-test-PID,
# with its own port, data and keys), so a user's `squeeze` deployment is never touched.
#   1. the data folder belongs to uid 1234 (gid 1234), as a user's own folder would, and is
#      never chowned to anything else: the containers run as its owner, and after the jobs
#      every output, and everything else in the folder, still belongs to 1234;
#   2. a coordinator and 3 workers; a 120 MiB folder submitted from the host CLI; every output
#      checked with gzip -t and byte-compared after gunzip -c;
#   3. scaled to 5 workers (make compose-up WORKERS=5) while a second job (600 MiB) runs;
#      status shows the new workers took work, and no container was recreated;
#   4. one worker container stopped (podman stop) and another killed (podman kill) mid-job;
#      the job still completes correctly;
#   5. make compose-down: no container, network, volume or pod of the project left, and no
#      temporaries in the data.
# Both coordinator ports use CURVE: compose-up makes the keys (compose/keys.sh), owned by the
# containers' uid, and the host client uses them; a client without keys or with an unknown key
# is refused. With podman, the image's squeeze also runs as a uid without an /etc/passwd entry.
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
else
  engine=podman
fi
project=squeeze-test-$$
owner=1234  # the data folder's owner: a user with no account in the image
work=$(mktemp -d "${TMPDIR:-/tmp}/squeeze-compose.XXXXXX")
data=$work/data
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
http_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
keys=$work/keys
image=${SQUEEZE_IMAGE:-squeeze:latest}
# The host's client uses the client key compose/keys.sh makes, as `make compose-submit` does.
export SQUEEZE_KEY=$keys/client.key SQUEEZE_COORDINATOR_KEY=$keys/coordinator.pub
endpoint=tcp://127.0.0.1:$port
if [[ $engine == podman ]]; then
  label=label=io.podman.compose.project=$project
else
  label=label=com.docker.compose.project=$project
fi

# The Makefile's compose targets, for this test's project. The containers' uid and gid come
# from the data folder, as for a user: no SQUEEZE_UID/SQUEEZE_GID from the environment.
mk() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SQUEEZE_UID -u SQUEEZE_GID -u COMPOSE_PROJECT_NAME \
    make -s --no-print-directory -C "$repo" "$@" SQUEEZE_PROJECT="$project" \
    SQUEEZE_DATA="$data" SQUEEZE_PORT="$port" SQUEEZE_HTTP_PORT="$http_port" SQUEEZE_KEYS="$keys" SQUEEZE_IMAGE="$image"
}

# What is left of the project: containers, networks, volumes (and pods, with podman).
leftovers() {
  $engine ps -a -q --filter "$label"
  $engine network ls -q --filter "$label"
  $engine volume ls -q --filter "$label"
  if [[ $engine == podman ]]; then podman pod ls -q --filter "$label"; fi
}

teardown() {
  set +e
  if [[ -n $(leftovers) ]]; then
    mk compose-down >"$work/down.log" 2>&1 || { cat "$work/down.log" >&2; say "make compose-down failed"; }
  fi
  if [[ -n $(leftovers) ]]; then
    say "left after make compose-down, removing by hand: $(leftovers | tr '\n' ' ')"
    # shellcheck disable=SC2046
    $engine rm -f $($engine ps -a -q --filter "$label") >/dev/null 2>&1
    # shellcheck disable=SC2046
    $engine network rm $($engine network ls -q --filter "$label") >/dev/null 2>&1
    # shellcheck disable=SC2046
    $engine volume rm $($engine volume ls -q --filter "$label") >/dev/null 2>&1
  fi
  rm -rf "$work" 2>/dev/null || $engine unshare rm -rf "$work" 2>/dev/null
}
trap teardown EXIT

# The data: 120 MiB of text-like files in 60 files of 2 MiB, in a folder of uid 1234's.
mkdir -p "$data"
python3 "$repo/compose/test-data.py" "$data/set"
# Job 2's folder, five times as big (hard links, no more disk), so that it outlasts the
# scale-up: `make compose-up` checks the build and the image before it starts new workers,
# which on two busy cores took 38 to 45 s against 41 to 43 s for three times the data.
mkdir -p "$data/wide"
cp -al "$data/set/." "$data/wide/"
for part in 0 1 2 3 4 5; do
  for copy in again thrice fourfold fivefold; do cp -al "$data/set/part-$part" "$data/wide/$copy-$part"; done
done
chown -R "$owner:$owner" "$data"
bytes=$(du -sb "$data/set" | cut -f1)
say "engine $engine, project $project, client port $port, $bytes bytes of data owned by uid $owner"

status_json() { "$bin" status --coordinator "$endpoint" --json 2>/dev/null; }
workers_count() { status_json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))' 2>/dev/null || echo 0; }
wait_workers() {
  for _ in $(seq 120); do
    [[ $(workers_count) -eq $1 ]] && return 0
    sleep 0.5
  done
  for container in $($engine ps -a --filter "$label" --format '{{.Names}}'); do
    say "last logs of $container:"
    $engine logs --tail 20 "$container" >&2 || true
  done
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
say "make compose-up WORKERS=$initial"
mk compose-up WORKERS=$initial >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "make compose-up"; }
wait_workers $initial
# The keys belong to the containers' uid; the coordinator's secret key stays mode 0600.
key_stat=$(stat -c '%a %u %g' "$keys/coordinator.key")
[[ $key_stat == "600 $owner $owner" ]] || fail "coordinator.key: mode, uid and gid $key_stat, expected 600 $owner $owner"
# The compose file's healthchecks (squeeze health) pass in every container.
if [[ $engine == podman ]]; then
  # Without systemd podman does not schedule healthchecks; run each once by hand.
  for container in $(podman ps --filter "$label" --format '{{.Names}}'); do
    podman healthcheck run "$container" >/dev/null 2>&1 || fail "healthcheck of $container"
  done
else
  for _ in $(seq 60); do
    unhealthy=$(docker ps --filter "$label" --format '{{.Status}}' | grep -vc '(healthy)' || true)
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
    mk compose-up WORKERS="$n" >>"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "make compose-up WORKERS=$n"; }
    wait_workers "$n"
    # The binary itself, as compose-submit runs it, so that make's own start is not timed.
    start=$(date +%s.%N)
    "$bin" submit /data/set -o "/data/measure-$n" --coordinator "$endpoint" >/dev/null
    end=$(date +%s.%N)
    awk -v n="$n" -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN { printf "%d worker containers: %.2f s, %.1f MB/s\n", n, e - s, b / (e - s) / 1e6 }'
  done
  mk compose-down >"$work/down.log" 2>&1 || { cat "$work/down.log" >&2; fail "make compose-down"; }
  exit 0
fi

say "job 1: 3 workers, make compose-submit SRC=/data/set"
mk compose-submit SRC=/data/set >"$work/job1.out" 2>&1 || { cat "$work/job1.out" >&2; fail "job 1"; }
verify "$data/set" "$data/set.squeezed"
mk compose-status >"$work/status.out" 2>&1 || { cat "$work/status.out" >&2; fail "make compose-status"; }
say "make compose-status:"
cat "$work/status.out" >&2

say "the page and metrics, published on the host's port $http_port"
# Prometheus's own parser reads what a scrape of the published port gets (Debian's
# python3-prometheus-client, which make deps installs: the system python, not one on PATH).
/usr/bin/python3 - "http://127.0.0.1:$http_port" <<'PY' || fail "metrics on the published port"
import json, sys, time, urllib.request
from prometheus_client.parser import text_string_to_metric_families
base = sys.argv[1]
for _ in range(50):
    samples = {}
    for family in text_string_to_metric_families(urllib.request.urlopen(base + "/metrics", timeout=5).read().decode()):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    done = samples.get(("squeeze_files_total", (("result", "done"),)), 0)
    if samples.get(("squeeze_workers", ())) == 3 and done == 60:
        break
    time.sleep(0.2)
else:
    sys.exit("metrics: workers %s, files done %s" % (samples.get(("squeeze_workers", ())), done))
for _ in range(50):  # the page's data is sampled once a second
    status = json.load(urllib.request.urlopen(base + "/api/status", timeout=5))
    if status["jobs"] and status["jobs"][0]["state"] == "completed":
        break
    time.sleep(0.2)
assert len(status["workers"]) == 3, status["workers"]
assert status["jobs"][0]["state"] == "completed", status["jobs"]
page = urllib.request.urlopen(base + "/", timeout=5).read().decode()
assert "api/events" in page
print("metrics: 3 workers, 60 files done; /api/status and / served", file=sys.stderr)
PY

say "job 2: make compose-up WORKERS=5 while it runs"
before=$(status_json | python3 -c 'import json,sys; print(" ".join(w["workerID"] for w in json.load(sys.stdin)["workers"]))')
job2_started=$(date +%s)
mk compose-submit SRC=/data/wide ARGS="-o /data/job2 --level 9 --json" >"$work/job2.out" &
job2=$!
wait_progress "$work/job2.out" 0.02
started=$(date +%s)
mk compose-up WORKERS=5 >>"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "make compose-up WORKERS=5"; }
say "make compose-up WORKERS=5 returned in $(( $(date +%s) - started )) s"
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
say "job 2 took $(( $(date +%s) - job2_started )) s"
if [[ -z $new_took_work ]]; then
  "$bin" status --coordinator "$endpoint" >&2
  tail -2 "$work/job2.out" >&2
  fail "the new workers took no work during job 2 (workers before: $before)"
fi
say "5 workers registered, ${new_took_work#* } of the new ones took work"
# The scale-up added two containers and recreated none: the coordinator and 5 workers, all up.
running=$($engine ps --filter "$label" --format '{{.Names}}' | wc -l)
all=$($engine ps -a --filter "$label" --format '{{.Names}}' | wc -l)
[[ $running -eq 6 && $all -eq 6 ]] || { $engine ps -a --filter "$label" >&2; fail "$running of $all containers running, expected 6 of 6"; }
relayed=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("event") == "finished": print(event.get("bytesRelayed", -1))' "$work/job2.out")
[[ $relayed == 0 ]] || fail "job 2: $relayed bytes passed through the coordinator; the workers share /data and should have used it"
say "job 2: no block passed through the coordinator (shared storage)"
verify "$data/wide" "$data/job2"

say "job 3: one worker stopped and another killed mid-job"
mk compose-submit SRC=/data/set ARGS="-o /data/job3 --level 9 --json" >"$work/job3.out" &
job3=$!
wait_progress "$work/job3.out" 0.1
mapfile -t containers < <($engine ps --filter "$label" --format '{{.Names}}' | grep worker | sort)
[[ ${#containers[@]} -ge 2 ]] || fail "expected worker containers, found: ${containers[*]}"
$engine stop -t 10 "${containers[0]}" >/dev/null
say "stopped ${containers[0]}"
$engine kill "${containers[1]}" >/dev/null
say "killed ${containers[1]}"
wait $job3 || { tail -3 "$work/job3.out" >&2; fail "job 3 exited non-zero"; }
verify "$data/set" "$data/job3"

# Everything in the data folder, the outputs and their folders included, belongs to its owner.
foreign=$(find "$data" \( ! -uid "$owner" -o ! -gid "$owner" \) -printf '%u:%g %p\n' | awk 'NR <= 5')
[[ -z $foreign ]] || fail "not owned by $owner:$owner in the data folder: $foreign"
say "every output belongs to uid $owner, gid $owner"

if [[ $engine == podman ]]; then
  # A uid with no /etc/passwd entry at all (podman adds one for --user unless --passwd=false;
  # Docker never does): the image's squeeze compresses a folder of that uid's.
  mkdir -p "$work/nobody/in"
  head -c 3000000 "$data/set/part-0/file-0.txt" >"$work/nobody/in/a.txt"
  chown -R 4321:4321 "$work/nobody"
  podman run --rm --passwd=false --user 4321:4321 --network none -v "$work/nobody:/data" "$image" \
    compress /data/in -o /data/out >"$work/nobody.log" 2>&1 \
    || { cat "$work/nobody.log" >&2; fail "squeeze as uid 4321 without a passwd entry"; }
  gzip -t "$work/nobody/out/a.txt.gz" || fail "uid 4321: bad output"
  [[ $(stat -c %u "$work/nobody/out/a.txt.gz") == 4321 ]] || fail "uid 4321: output not owned by 4321"
  say "the image's squeeze runs as a uid without a passwd entry"
fi

say "make compose-down"
started=$(date +%s)
mk compose-down >"$work/down.log" 2>&1 || { cat "$work/down.log" >&2; fail "make compose-down"; }
say "make compose-down returned in $(( $(date +%s) - started )) s"
left=$(leftovers | tr '\n' ' ')
[[ -z ${left// /} ]] || fail "left of project $project after make compose-down: $left"
left=$($engine ps -a --format '{{.Names}}' | grep -c "^$project" || true)
[[ $left -eq 0 ]] || fail "$left containers named $project* left"
networks=$($engine network ls --format '{{.Name}}' | grep -c "^$project" || true)
[[ $networks -eq 0 ]] || fail "$networks networks named $project* left"
temps=$(find "$data" -name '.squeeze-tmp-*' | wc -l)
[[ $temps -eq 0 ]] || fail "$temps temporaries left"
say "no container, network, volume or pod of $project left"
say "passed"
