#!/usr/bin/env bash
# make test-browser: the live page in a real browser while a real job runs. Starts a
# coordinator with --http on free loopback ports, two workers (slowed, so the job runs long
# enough to watch: a worker compresses a whole folder's small files as one item, so this job is
# about nine items, and 5 s each keeps it running for 20 s or more whatever the machine), submits a detached job, and has headless Chromium check the page
# (Tests/browser/dashboard_test.py). Every process it starts is killed by pid on exit.
# The screenshot is kept: $SQUEEZE_ARTEFACTS/dashboard.png (default .build/test-artefacts).
set -euo pipefail
bin=${SQUEEZE_BIN:-.build/release/squeeze}
artefacts=${SQUEEZE_ARTEFACTS:-.build/test-artefacts}
mkdir -p "$artefacts"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Waits until FILE has a line matching PATTERN (at most 20 s).
wait_for() {
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "test-browser: no '$2' in $1:" >&2; cat "$1" "${1%.out}.err" >&2 || true; return 1
}

mkdir -p "$work/data/logs"
python3 - "$work/data/logs" <<'PY'
import os, random, sys
random.seed(14)
words = [b"GET", b"POST", b"/api/v1/items", b"200", b"404", b"squeeze", b"worker", b"latency=", b"ms"]
for i in range(48):
    with open(os.path.join(sys.argv[1], "app-%02d.log" % i), "wb") as f:
        f.write(b"\n".join(b" ".join(random.choice(words) for _ in range(12)) for _ in range(20000)))
PY

"$bin" coordinator --listen tcp://127.0.0.1:0 --workers-listen tcp://127.0.0.1:0 --http 127.0.0.1:0 \
  --root "$work/data" --no-state > "$work/coordinator.out" 2> "$work/coordinator.err" &
pids+=($!)
wait_for "$work/coordinator.out" "http http://"
wait_for "$work/coordinator.out" "listening"
clients=$(grep -o 'clients=[^ ]*' "$work/coordinator.out" | cut -d= -f2)
workers=$(grep -o 'workers=[^ ]*' "$work/coordinator.out" | cut -d= -f2)
url=$(grep -o 'http://[^ ]*' "$work/coordinator.out")
for id in w1 w2; do
  "$bin" worker --coordinator "$workers" --id "$id" --slots 1 --test-item-delay 5s > "$work/$id.out" 2> "$work/$id.err" &
  pids+=($!)
done
for _ in $(seq 1 200); do
  [ "$("$bin" status --coordinator "$clients" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))')" = 2 ] && break
  sleep 0.1
done
"$bin" submit logs --coordinator "$clients" --block-size 64K --detach > "$work/job.out"
python3 Tests/browser/dashboard_test.py --url "$url" --workers w1,w2 --job-source logs \
  --screenshot "$artefacts/dashboard.png" --dump-dom "$artefacts/dashboard.html"
