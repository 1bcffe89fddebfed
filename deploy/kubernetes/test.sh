#!/usr/bin/env bash
# The Kubernetes test (`make kube-test`): the manifests of deploy/kubernetes rendered,
# validated and run for real with podman kube play on this machine.
#   1. deploy/kubernetes is copied into a temporary folder and given its own CURVE keys there
#      (make kube-keys KUBE_KEYS=...), so a user's deploy/kubernetes/keys is never touched;
#   2. every kustomization is rendered with kubectl kustomize and every object validated with
#      kubernetes-validate --strict (validate.sh, which also checks that overlays/local runs
#      the same containers, commands and probes as the deployment);
#   3. overlays/local is played with podman kube play, under a name prefix of this run's own
#      (kt-PID-), on a network of its own: first the coordinator; every probe's command is run
#      in its container as the kubelet would, the startup probes until they pass;
#   4. a 120 MiB folder is written into the data volume and submitted from the host with the
#      host's squeeze and the client key while no worker runs (as after a scale to zero): the
#      coordinator's /metrics, scraped, must show the job waiting in squeeze_items_queued,
#      what the autoscalers read; then the worker Deployment is played (its two replicas,
#      probed the same way: back from zero), and the backlog is scraped again as they work;
#   5. mid-job, one worker pod is deleted the way a scale-down does it: SIGTERM, then SIGKILL
#      only if terminationGracePeriodSeconds runs out; the worker must drain, say goodbye (the
#      coordinator logs that it left, not that it fell silent) and exit 0 in time, and the job
#      must still complete with every output checked (gzip -t, gunzip -c | cmp), each file
#      published once (the coordinator's counters), no temporaries, no byte relayed;
#   6. everything of the run is removed (pods, containers, volumes, network, secrets) and
#      nothing of it may be left; on a failure the trap removes it all the same.
# What podman 4.3 lacks is done around it, without changing the containers' commands, probes
# or volumes: it ignores Services, so the coordinator pod gets the Service's name as its alias
# on the run's network; it writes a Secret volume's files base64-encoded, so the Secrets are
# played as ConfigMaps with the same files; it publishes every containerPort on the host, so
# the ports lists are left out and the pods are reached at their own addresses; it runs no
# probes without systemd (and its healthcheck would want a shell the image does not have), so
# this script runs the probes' commands with podman exec.
#   deploy/kubernetes/test.sh   (make kube-test: packs the image first)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
started=$(date +%s)

say() { echo "kube-test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

bin=$(swift build -c release --show-bin-path)/squeeze
[[ -x $bin ]] || fail "no release binary at $bin (make release)"
venv=${KUBE_VENV:-$repo/.build/kube-venv}
[[ -x $venv/bin/kubernetes-validate ]] || fail "no kubernetes-validate in $venv (make kube-deps)"
command -v kubectl >/dev/null || fail "kubectl is needed (kubectl kustomize)"
python=$venv/bin/python  # has PyYAML
image=localhost/squeeze-kube-test:latest  # overlays/local names it; make kube-image packs it
podman image exists "$image" || fail "no image $image (make kube-image)"

run=kt-$$
network=$run-net
work=$(mktemp -d "${TMPDIR:-/tmp}/squeeze-kube.XXXXXX")
tree=$work/kubernetes
play=$work/play
mkdir -p "$play"

# Everything of this run, by its name prefix: pods, containers, volumes, networks, secrets.
leftovers() {
  podman pod ls --format '{{.Name}}' | grep "^$run-" | sed 's/^/pod /' || true
  podman ps -a --format '{{.Names}}' | grep "^$run-" | sed 's/^/container /' || true
  podman volume ls --format '{{.Name}}' | grep "^$run-" | sed 's/^/volume /' || true
  podman network ls --format '{{.Name}}' | grep "^$run-" | sed 's/^/network /' || true
  podman secret ls --format '{{.Name}}' | grep "^$run-" | sed 's/^/secret /' || true
}
# Without systemd (as in these sandboxes), podman says on every container that it cannot
# remove a healthcheck timer it never made, and sometimes that it cannot reach syslog: those
# lines are dropped, any other shown.
quiet_systemd() { grep -v -e 'unable to get systemd connection' -e 'failed to connect to syslog' >&2 || true; }
remove_all() {
  local name
  for name in $(podman pod ls --format '{{.Name}}' | grep "^$run-" || true); do
    podman pod rm -f -t 30 "$name" >/dev/null 2> >(quiet_systemd)
  done
  for name in $(podman ps -a --format '{{.Names}}' | grep "^$run-" || true); do
    podman rm -f -v "$name" >/dev/null 2> >(quiet_systemd)
  done
  for name in $(podman volume ls --format '{{.Name}}' | grep "^$run-" || true); do
    podman volume rm -f "$name" >/dev/null 2> >(quiet_systemd)
  done
  for name in $(podman network ls --format '{{.Name}}' | grep "^$run-" || true); do
    podman network rm -f "$name" >/dev/null 2> >(quiet_systemd)
  done
  for name in $(podman secret ls --format '{{.Name}}' | grep "^$run-" || true); do
    podman secret rm "$name" >/dev/null 2> >(quiet_systemd)
  done
}
teardown() {
  local status=$?
  set +e
  # The background submit, if it still runs.
  [[ -n ${job:-} ]] && kill "$job" 2>/dev/null
  if [[ $status -ne 0 ]]; then
    for file in "$work"/job.out "$work"/job.err; do
      [[ -s $file ]] && { say "last lines of $(basename "$file"):"; tail -3 "$file" | sed 's/^/  /' >&2; }
    done
    for container in $(podman ps -a --format '{{.Names}}' | grep "^$run-" | grep -v -- '-infra$'); do
      say "last logs of $container:"
      podman logs --tail 15 "$container" 2>&1 | sed 's/^/  /' >&2
    done
  fi
  remove_all
  left=$(leftovers)
  [[ -z $left ]] || say "left after the teardown: $(tr '\n' ' ' <<<"$left")"
  rm -rf "$work"
  say "$( [[ $status -eq 0 ]] && echo passed || echo failed ) in $(( $(date +%s) - started )) s"
}
trap teardown EXIT
# Interrupted: fail (the EXIT trap then sees the status), tearing down all the same.
trap 'exit 130' INT
trap 'exit 143' TERM

# 1. The tree and its own keys.
mkdir -p "$tree"
cp -r deploy/kubernetes/base deploy/kubernetes/overlays deploy/kubernetes/kustomization.yaml "$tree/"
mkdir -p "$tree/keys" && cp deploy/kubernetes/keys/kustomization.yaml "$tree/keys/"
# -o release: the binary is built already (make kube-test built it); a nested make would run
# swift build again, which in another environment recompiles part of Hummingbird (its
# manifest reads the environment), half a minute for nothing.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$repo" -o release kube-keys KUBE_KEYS="$tree/keys" \
  >"$work/keys.log" 2>&1 || { cat "$work/keys.log" >&2; fail "make kube-keys"; }
export SQUEEZE_KEY=$tree/keys/client.key SQUEEZE_COORDINATOR_KEY=$tree/keys/coordinator.pub

# 2. Render and validate every kustomization.
bash deploy/kubernetes/validate.sh "$tree" "$venv" "$work/rendered"

# 3. The local overlay under this run's prefix, split for podman: the coordinator's file
# (with the volumes' claims) and the workers' (each with the keys as ConfigMaps).
mkdir -p "$play/run"
cat >"$play/run/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: $run-
resources:
  - ../../kubernetes/overlays/local
YAML
kubectl kustomize "$play/run" >"$play/local.yaml"
"$python" - "$play" <<'PY'
import base64, sys, yaml
play = sys.argv[1]
docs = [d for d in yaml.safe_load_all(open(f"{play}/local.yaml")) if d]
maps = []
for d in docs:
    if d["kind"] == "Secret":
        # The same files, as a ConfigMap of the same name (podman 4.3's Secret volumes hold
        # base64 text). Keys are text, so data: suffices; the modes stay the Deployment's.
        maps.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": d["metadata"]["name"]},
                     "data": {k: base64.b64decode(v).decode() for k, v in d["data"].items()}})
def pods(component):
    [deployment] = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["labels"]["app.kubernetes.io/component"] == component]
    # podman 4.3 publishes every containerPort on the host's same port, which Kubernetes
    # never does (and two workers on one host cannot): the list goes, the processes listen
    # all the same, and this script reaches them at the pod's address.
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        container.pop("ports", None)
    for volume in deployment["spec"]["template"]["spec"]["volumes"]:
        if "secret" in volume:
            secret = volume.pop("secret")
            volume["configMap"] = {"name": secret["secretName"], "defaultMode": secret["defaultMode"], "optional": False}
    return deployment
claims = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
yaml.safe_dump_all(maps + claims + [pods("coordinator")], open(f"{play}/coordinator.yaml", "w"))
yaml.safe_dump_all(maps + [pods("worker")], open(f"{play}/workers.yaml", "w"))
# What the script needs to know of the pods: names, grace periods, probes, the Service.
facts = {}
for d in docs:
    if d["kind"] == "Deployment":
        spec = d["spec"]["template"]["spec"]
        [container] = spec["containers"]
        facts[d["metadata"]["labels"]["app.kubernetes.io/component"]] = {
            "deployment": d["metadata"]["name"], "container": container["name"],
            "replicas": d["spec"]["replicas"], "grace": spec["terminationGracePeriodSeconds"],
            "args": container["args"],
            **{probe: container[probe] for probe in ("startupProbe", "readinessProbe", "livenessProbe")}}
    if d["kind"] == "Service":
        facts["service"] = d["metadata"]["name"]
yaml.safe_dump(facts, open(f"{play}/facts.yaml", "w"))
PY
fact() { "$python" -c 'import sys, yaml; v = yaml.safe_load(open(sys.argv[1])); [v := v[k] for k in sys.argv[2:]]; print(v)' "$play/facts.yaml" "$@"; }
# The name the workers dial: the host in the worker's --coordinator, which in the cluster is
# the Service's name (without this run's prefix).
coordinator_host=$("$python" -c '
import sys, yaml
args = yaml.safe_load(open(sys.argv[1]))["worker"]["args"]
print(args[args.index("--coordinator") + 1].split("//")[1].split(":")[0])' "$play/facts.yaml")
[[ $(fact service) == "$run-$coordinator_host" ]] || fail "the workers dial $coordinator_host, the Service is $(fact service)"

# Runs PROBE (startupProbe, readinessProbe, livenessProbe) of COMPONENT's pod container
# CONTAINER once: the probe's exec command, with podman exec.
probe() {
  local component=$1 kind=$2 container=$3
  local -a command
  mapfile -d '' command < <("$python" -c '
import sys, yaml
sys.stdout.write("\0".join(yaml.safe_load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]]["exec"]["command"]) + "\0")' \
    "$play/facts.yaml" "$component" "$kind")
  timeout "$(fact "$component" "$kind" timeoutSeconds)" podman exec "$container" "${command[@]}" >/dev/null 2>&1
}
# Waits for COMPONENT's startup probe in CONTAINER, as the kubelet does: every periodSeconds,
# at most failureThreshold times.
wait_started() {
  local component=$1 container=$2 tries period i
  tries=$(fact "$component" startupProbe failureThreshold)
  period=$(fact "$component" startupProbe periodSeconds)
  for ((i = 1; i <= tries; i++)); do
    probe "$component" startupProbe "$container" && { say "$container: startup probe passed (try $i)"; return 0; }
    sleep "$period"
  done
  fail "$container: startup probe failed $tries times"
}
probes_pass() {
  local component=$1 container=$2 kind
  for kind in readinessProbe livenessProbe; do
    probe "$component" "$kind" "$container" || fail "$container: $kind failed"
  done
}

podman network create "$network" >/dev/null
say "podman kube play: the coordinator (alias $coordinator_host on network $network)"
podman kube play --network "$network:alias=$coordinator_host" "$play/coordinator.yaml" >"$work/play.log" 2> >(quiet_systemd) \
  || { cat "$work/play.log" >&2; fail "podman kube play coordinator.yaml"; }
coordinator=$(fact coordinator deployment)-pod-0-$(fact coordinator container)
wait_started coordinator "$coordinator"
probes_pass coordinator "$coordinator"
ip=$(podman inspect "$coordinator" --format "{{(index .NetworkSettings.Networks \"$network\").IPAddress}}")
endpoint=tcp://$ip:5555
metrics_url=http://$ip:8080/metrics
say "coordinator $coordinator at $ip: probes pass"

status_json() { "$bin" status --coordinator "$endpoint" --json 2>/dev/null; }
workers_count() { status_json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["workers"]))' 2>/dev/null || echo 0; }
env -u SQUEEZE_KEY -u SQUEEZE_COORDINATOR_KEY "$bin" status --coordinator "$endpoint" >/dev/null 2>&1 \
  && fail "a client without keys got a status"
say "a client without keys is refused"

# 4. The data, in the data volume as the pods see it: 60 files of 2 MiB, text-like.
data_volume=$run-squeeze-data
data=$(podman volume inspect --format '{{.Mountpoint}}' "$data_volume")
python3 "$repo/compose/test-data.py" "$data/set"
# The pods run as uid 10001 and write the outputs beside the sources. The volume was made for
# that uid (overlays/local's annotations, podman's fsGroup), but podman then gave it the owner
# of the image's own /data (root), as it does when it first mounts an empty volume over a
# folder of the image; a Kubernetes volume gets fsGroup or its provisioner's owner instead.
chown -R 10001:10001 "$data"
files=$(find "$data/set" -type f | wc -l)
bytes=$(find "$data/set" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
say "$files files, $bytes bytes in the data volume ($data_volume, /data/set in every pod)"

# The coordinator's metrics: NAME VALUE lines of the unlabelled gauges and counters asked for.
scrape() {
  python3 - "$metrics_url" "$@" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
values = {}
for line in text.splitlines():
    if line and not line.startswith("#"):
        name, _, value = line.rpartition(" ")
        values[name] = value
print(" ".join(str(int(float(values[name]))) for name in sys.argv[2:]))
PY
}
# Waits until the submit's JSON progress in FILE passes FRACTION of the bytes.
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
  fail "the job did not reach $fraction of its bytes"
}

# The job comes while no worker runs, as after a scale to zero: the coordinator accepts it
# and its plan waits in squeeze_items_queued, which is what activates KEDA's trigger.
say "job: squeeze submit /data/set --level 9 from the host, to $endpoint, with no worker yet"
"$bin" submit /data/set -o /data/out --level 9 --json --coordinator "$endpoint" >"$work/job.out" 2>"$work/job.err" &
job=$!
for _ in $(seq 300); do
  read -r queued in_flight registered < <(scrape squeeze_items_queued squeeze_items_in_flight squeeze_workers)
  (( queued > 0 )) && break
  kill -0 $job 2>/dev/null || fail "the submit ended with no worker there"
  sleep 0.1
done
(( queued > 0 && in_flight == 0 && registered == 0 )) \
  || fail "with no worker: squeeze_items_queued $queued, squeeze_items_in_flight $in_flight, squeeze_workers $registered"
say "scraped $metrics_url with no worker: squeeze_workers 0, squeeze_items_queued $queued (above KEDA's activationThreshold 0: it would start a worker)"

# Back from zero: the worker Deployment's replicas.
workers=$(fact worker replicas)
say "podman kube play: the workers ($workers replicas)"
podman kube play --network "$network" "$play/workers.yaml" >>"$work/play.log" 2> >(quiet_systemd) \
  || { cat "$work/play.log" >&2; fail "podman kube play workers.yaml"; }
mapfile -t worker_pods < <(podman pod ls --format '{{.Name}}' | grep "^$(fact worker deployment)-pod-" | sort)
[[ ${#worker_pods[@]} -eq $workers ]] || fail "podman made ${#worker_pods[@]} worker pods for $workers replicas: ${worker_pods[*]}"
for pod in "${worker_pods[@]}"; do
  wait_started worker "$pod-$(fact worker container)"
  probes_pass worker "$pod-$(fact worker container)"
done

[[ $(workers_count) -eq $workers ]] || fail "the coordinator has $(workers_count) workers, expected $workers"
say "$workers workers registered over CURVE, their probes pass"
# The backlog the autoscalers read, scraped while the workers take the job.
for _ in $(seq 300); do
  read -r queued in_flight < <(scrape squeeze_items_queued squeeze_items_in_flight)
  (( in_flight > 0 )) && break
  kill -0 $job 2>/dev/null || break
  sleep 0.05
done
(( queued + in_flight > 0 )) || fail "no backlog scraped while the job ran"
say "scraped $metrics_url mid-job: squeeze_items_queued $queued, squeeze_items_in_flight $in_flight; the autoscalers' backlog $(( queued + in_flight )) items would ask for $(( (queued + in_flight + 7) / 8 )) workers at 8 a worker"

# 5. A scale-down as the kubelet does it: SIGTERM to the pod's container, SIGKILL only when
# terminationGracePeriodSeconds runs out (podman stop -t), then the pod's sandbox and the pod
# go (podman pod rm). (podman pod stop would take the pod's network down while the worker
# still says goodbye.)
wait_progress "$work/job.out" 0.1
victim=${worker_pods[1]}
victim_container=$victim-$(fact worker container)
grace=$(fact worker grace)
say "deleting worker pod $victim mid-job: SIGTERM, grace period $grace s"
stop_started=$(date +%s.%N)
podman stop -t "$grace" "$victim_container" >/dev/null 2> >(quiet_systemd)
stop_took=$(awk -v s="$stop_started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
exit_code=$(podman inspect "$victim_container" --format '{{.State.ExitCode}}')
podman logs "$victim_container" >"$work/victim.log" 2>&1
podman pod rm -f "$victim" >/dev/null 2> >(quiet_systemd)
[[ $exit_code -eq 0 ]] || { tail -5 "$work/victim.log" >&2; fail "the worker exited $exit_code on SIGTERM (137: killed at the end of the grace period), not 0"; }
kill -0 $job 2>/dev/null || fail "the job ended before the worker was gone: nothing was tested mid-job"
# Drained: it said goodbye (the coordinator took back what it held at once), rather than
# falling silent and being declared dead after the heartbeat's liveness.
left_line=$(podman logs "$coordinator" 2>&1 | grep "worker=$victim-" | grep -E "worker left|declared dead" | tail -1 | sed 's/.*\] //')
[[ $left_line == "worker left" ]] || fail "the coordinator did not hear $victim's goodbye: ${left_line:-nothing}"
say "$victim drained, said goodbye and exited 0 in $stop_took s (grace $grace s); the job goes on"
requeue_line=$(podman logs "$coordinator" 2>&1 | grep "worker=$victim-" | grep "requeued items" | tail -1 | grep -o 'items=[0-9]*' || true)
say "the coordinator: worker left, ${requeue_line:-items=0} handed back and requeued"

wait $job || { tail -3 "$work/job.out" "$work/job.err" >&2; fail "the job exited non-zero"; }
finished=$(grep '"event" *: *"finished"' "$work/job.out" || true)
say "job finished: ${finished:0:400}"
# The workers shared the data volume: no block went through the coordinator.
relayed=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("event") == "finished": print(event.get("bytesRelayed", -1))' "$work/job.out")
[[ $relayed == 0 ]] || fail "$relayed bytes passed through the coordinator; the workers share /data and should have used it"
[[ $(workers_count) -eq $(( workers - 1 )) ]] || fail "the coordinator has $(workers_count) workers after the scale-down, expected $(( workers - 1 ))"

# Every output: a valid gzip whose content is its source's, one per file, no temporaries.
n=0
while IFS= read -r -d '' f; do
  gzip -t "$data/out/$f.gz" || fail "gzip -t: out/$f.gz"
  gunzip -c "$data/out/$f.gz" | cmp -s - "$data/set/$f" || fail "content differs: $f"
  n=$((n + 1))
done < <(cd "$data/set" && find . -type f -print0)
outputs=$(find "$data/out" -type f -name '*.gz' | wc -l)
temps=$(find "$data" -name '.squeeze-tmp-*' | wc -l)
[[ $n -eq $files && $outputs -eq $files ]] || fail "$outputs outputs for $files files"
[[ $temps -eq 0 ]] || fail "$temps temporaries left"
# Each file published once: the coordinator counts every publish, and its input bytes are
# exactly the job's; nothing is left queued or in flight.
read -r published input_bytes queued in_flight requeued < <(scrape 'squeeze_files_total{result="done"}' \
  squeeze_input_bytes_total squeeze_items_queued squeeze_items_in_flight squeeze_items_requeued_total)
[[ $published -eq $files ]] || fail "the coordinator published $published files for $files"
[[ $input_bytes -eq $bytes ]] || fail "the coordinator counted $input_bytes input bytes for $bytes"
[[ $queued -eq 0 && $in_flight -eq 0 ]] || fail "after the job: $queued items queued, $in_flight in flight"
say "verified $n outputs (gzip -t, gunzip -c | cmp); $published files published once, $input_bytes bytes; squeeze_items_requeued_total $requeued; backlog 0"
probes_pass worker "${worker_pods[0]}-$(fact worker container)"
probes_pass coordinator "$coordinator"
say "the remaining pods' probes pass"

# 6. Everything of the run goes; nothing of it may be left. (podman kube down would stop
# at the worker pod deleted above, so the pods go by name, with the workers' grace period.)
remove_all
left=$(leftovers)
[[ -z $left ]] || fail "left of $run: $(tr '\n' ' ' <<<"$left")"
say "no pod, container, volume, network or secret of $run left"
