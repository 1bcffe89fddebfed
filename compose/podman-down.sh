#!/usr/bin/env bash
# `make compose-down` with podman: stops and removes every container of the compose project,
# however many workers it was scaled to, then its networks, volumes and pods, all found by the
# label podman-compose puts on them (io.podman.compose.project). podman-compose 1.6's own
# `down` knows only the replicas the compose file declares, not those added with --scale, and
# removing the coordinator while workers still depend on it fails ("has dependent containers
# which must be removed before it"). Exits non-zero if anything of the project is left.
#   compose/podman-down.sh PROJECT
set -euo pipefail
project=${1:?usage: podman-down.sh PROJECT}
label=label=io.podman.compose.project=$project
# Without systemd (as in these sandboxes) podman reports on every container that it cannot
# remove a healthcheck timer it never made: that line is dropped, any other error shown.
quiet_systemd() { grep -v 'unable to get systemd connection' >&2 || true; }

mapfile -t containers < <(podman ps -a -q --filter "$label")
if [[ ${#containers[@]} -gt 0 ]]; then
  # All at once (podman stops them in parallel): workers drain in at most 5 s, the coordinator
  # fails its running jobs cleanly; 15 s is the longest grace period in the compose file.
  podman stop -t 15 "${containers[@]}" >/dev/null 2> >(quiet_systemd)
  # --depend takes a container's dependents with it (workers depend on the coordinator), and
  # --ignore lets the ones already taken that way pass; -v removes anonymous volumes.
  podman rm -f -v --depend --ignore "${containers[@]}" >/dev/null 2> >(quiet_systemd)
fi
mapfile -t pods < <(podman pod ls -q --filter "$label")
[[ ${#pods[@]} -eq 0 ]] || podman pod rm -f "${pods[@]}" >/dev/null
mapfile -t networks < <(podman network ls -q --filter "$label")
[[ ${#networks[@]} -eq 0 ]] || podman network rm -f "${networks[@]}" >/dev/null
mapfile -t volumes < <(podman volume ls -q --filter "$label")
[[ ${#volumes[@]} -eq 0 ]] || podman volume rm -f "${volumes[@]}" >/dev/null

left=$(podman ps -a -q --filter "$label"; podman pod ls -q --filter "$label"
       podman network ls -q --filter "$label"; podman volume ls -q --filter "$label")
if [[ -n $left ]]; then
  echo "compose-down: left of project $project: $(tr "\n" " " <<<"$left")" >&2
  exit 1
fi
if [[ $(( ${#containers[@]} + ${#pods[@]} + ${#networks[@]} + ${#volumes[@]} )) -eq 0 ]]; then
  echo "compose-down: nothing of project $project to remove" >&2
else
  echo "compose-down: project $project removed (${#containers[@]} containers, ${#networks[@]} networks, ${#volumes[@]} volumes)" >&2
fi
