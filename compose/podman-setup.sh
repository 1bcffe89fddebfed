#!/usr/bin/env bash
# Makes podman + podman-compose run the compose file on a machine without a Docker engine
# (see docs/operations.md): Debian's podman and runc, the containers.conf settings these
# sandboxes need, and podman-compose 1.6 from PyPI in a virtual environment.
#   compose/podman-setup.sh VENV_DIR
set -euo pipefail
venv=${1:?usage: podman-setup.sh VENV_DIR}
sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo

missing=()
for package in podman runc python3-venv; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "compose: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# No rlimit changes and cgroupfs + runc: what works in these sandboxes.
conf=/etc/containers/containers.conf
if ! grep -qs 'cgroup_manager *= *"cgroupfs"' "$conf"; then
  if [[ -s $conf ]]; then
    dropin=/etc/containers/containers.conf.d/50-squeeze.conf
    echo "compose: writing $dropin" >&2
    $sudo mkdir -p "$(dirname "$dropin")"
    target=$dropin
  else
    echo "compose: writing $conf" >&2
    target=$conf
  fi
  printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' | $sudo tee "$target" >/dev/null
fi

if [[ ! -x $venv/bin/podman-compose ]]; then
  echo "compose: installing podman-compose 1.6.0 into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q podman-compose==1.6.0
fi
