#!/usr/bin/env bash
# Renders every kustomization of deploy/kubernetes (the deployment itself and each overlay)
# with `kubectl kustomize` and validates every object offline with
# `kubernetes-validate --strict` (the Kubernetes API's schemas: unknown fields are errors).
# Then checks what a schema cannot:
#   - the local overlay (podman kube play, make kube-test) runs the same containers, commands,
#     probes, volumes and keys as the deployment: only the image and its pull policy differ;
#   - each autoscaler aims at the worker Deployment and reads the coordinator's backlog
#     (squeeze_items_queued, squeeze_items_in_flight); KEDA's ScaledObject, whose schema is a
#     CRD that kubernetes-validate does not carry, is checked field by field here.
# The keys (make kube-keys) must be in DIR/keys; VENV holds kubernetes-validate (make
# kube-deps). Writes the rendered YAML to OUT and prints the objects of each kustomization.
#   deploy/kubernetes/validate.sh DIR VENV OUT
set -euo pipefail
usage="usage: validate.sh DIR VENV OUT"
dir=${1:?$usage}
venv=${2:?$usage}
out=${3:?$usage}
validate=$venv/bin/kubernetes-validate
mkdir -p "$out"
say() { echo "kube-validate: $*" >&2; }

names=(kubernetes)
kubectl kustomize "$dir" >"$out/kubernetes.yaml"
for overlay in "$dir"/overlays/*/; do
  name=$(basename "$overlay")
  kubectl kustomize "$overlay" >"$out/$name.yaml"
  names+=("$name")
done

for name in "${names[@]}"; do
  file=$out/$name.yaml
  "$validate" --strict "$file" >"$out/$name.validate" 2>&1 || { cat "$out/$name.validate" >&2; say "FAILED: $name"; exit 1; }
  # kubernetes-validate exits 0 on a kind it has no schema for, with a warning: only KEDA's
  # ScaledObject may be one (checked below); anything else not "passed" fails.
  unexpected=$(grep -v " passed for resource " "$out/$name.validate" \
    | grep -v "Couldn't find schema for kind ScaledObject with api version keda.sh/v1alpha1" || true)
  [[ -z $unexpected ]] || { echo "$unexpected" >&2; say "FAILED: $name: not every object passed"; exit 1; }
  crds=$(grep -c "Couldn't find schema for kind ScaledObject" "$out/$name.validate" || true)
  say "$name: $(grep -c " passed for resource " "$out/$name.validate") objects pass kubernetes-validate --strict$( ((crds == 0)) || echo "; $crds ScaledObject (a CRD, no schema there) checked below")"
done

# The venv's python: it has PyYAML (a dependency of kubernetes-validate).
"$venv/bin/python" - "$dir" "$out" "${names[@]}" <<'PY'
import sys, yaml
folder, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(name):
    return [d for d in yaml.safe_load_all(open(f"{out}/{name}.yaml")) if d]
def fail(message):
    sys.exit(f"kube-validate: FAILED: {message}")
rendered = {name: load(name) for name in names}
for name in names:
    listing = ", ".join(f"{d['kind']}/{d['metadata']['name']}" for d in rendered[name])
    print(f"kube-validate: {name}: {listing}", file=sys.stderr)

def deployments(docs):
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
base = deployments(rendered["kubernetes"])
if set(base) != {"squeeze-coordinator", "squeeze-worker"}:
    fail(f"deployments {sorted(base)}")

# The local overlay: the same pods but for the image.
if "local" in rendered:
    local = deployments(rendered["local"])
    for name, deployment in base.items():
        def comparable(d):
            spec = yaml.safe_load(yaml.safe_dump(d["spec"]["template"]["spec"]))
            for c in spec["containers"]:
                c.pop("image"); c.pop("imagePullPolicy", None)
            return spec
        if comparable(deployment) != comparable(local[name]):
            fail(f"overlays/local changes more than the image of {name}")
    print("kube-validate: local: the same containers, commands, probes and volumes as the deployment", file=sys.stderr)

backlog = ("squeeze_items_queued", "squeeze_items_in_flight")
for name, docs in rendered.items():
    for d in docs:
        if d["kind"] == "HorizontalPodAutoscaler":
            ref = d["spec"]["scaleTargetRef"]
            if (ref["kind"], ref["name"]) != ("Deployment", "squeeze-worker"):
                fail(f"{name}: the HPA scales {ref}")
            metric = d["spec"]["metrics"][0]["external"]["metric"]["name"]
            # prometheus-adapter's rule (Helm values beside the HPA) must serve that metric
            # from the backlog.
            values = yaml.safe_load(open(f"{folder}/overlays/{name}/prometheus-adapter-values.yaml"))
            served = [r for r in values["rules"]["external"] if r["name"]["as"] == metric]
            if len(served) != 1 or not all(m in served[0]["metricsQuery"] for m in backlog):
                fail(f"{name}: prometheus-adapter-values.yaml serves {metric} as {served}")
            print(f"kube-validate: {name}: HPA on external metric {metric}, replicas {d['spec']['minReplicas']}-{d['spec']['maxReplicas']}", file=sys.stderr)
        if d["kind"] == "ScaledObject":
            spec = d["spec"]
            allowed = {"scaleTargetRef", "minReplicaCount", "maxReplicaCount", "pollingInterval", "cooldownPeriod",
                       "idleReplicaCount", "initialCooldownPeriod", "fallback", "advanced", "triggers"}
            if d["apiVersion"] != "keda.sh/v1alpha1" or set(spec) - allowed:
                fail(f"{name}: ScaledObject fields {sorted(set(spec) - allowed)}")
            if spec["scaleTargetRef"]["name"] != "squeeze-worker":
                fail(f"{name}: the ScaledObject scales {spec['scaleTargetRef']}")
            if spec["minReplicaCount"] != 0:
                fail(f"{name}: minReplicaCount {spec['minReplicaCount']}, expected 0 (scale to zero)")
            for trigger in spec["triggers"]:
                meta = trigger["metadata"]
                if trigger["type"] != "prometheus" or not all(m in meta["query"] for m in backlog) \
                        or not {"serverAddress", "query", "threshold"} <= set(meta):
                    fail(f"{name}: trigger {trigger}")
                for key in ("threshold", "activationThreshold"):
                    float(meta[key])  # KEDA wants numbers in strings
            if spec["fallback"]["replicas"] < 1:
                fail(f"{name}: fallback to {spec['fallback']['replicas']} replicas")
            print(f"kube-validate: {name}: ScaledObject on {' + '.join(backlog)}, replicas {spec['minReplicaCount']}-{spec['maxReplicaCount']}", file=sys.stderr)
PY
