#!/usr/bin/env bash
# Makes compose's CURVE keys on first use (make compose-keys, compose-up, compose-test):
#   DIR/coordinator.{key,pub}  the coordinator's pair
#   DIR/worker.{key,pub}       one pair for every worker container
#   DIR/client.{key,pub}       the host's client (and the compose `client` service)
#   DIR/authorized/            the coordinator's allow-list: worker.pub and client.pub
# Existing keys are kept. The containers run as UID:GID (the Makefile passes the data folder's
# owner; default 10001, the image's user) and must read their keys, the coordinator's secret
# one (mode 0600) included: as root the folder is given to that uid (root on the host still
# reads it); otherwise this says what to run.
# Usage: compose/keys.sh SQUEEZE_BINARY DIR [UID [GID]]
set -euo pipefail
bin=$1
dir=$2
uid=${3:-10001}
gid=${4:-$uid}
mkdir -p "$dir/authorized"
made=""
for name in coordinator worker client; do
  if [[ ! -f $dir/$name.key || ! -f $dir/$name.pub ]]; then
    "$bin" keygen "$name" -o "$dir" --force >/dev/null
    made="$made $name"
  fi
done
for name in worker client; do
  cmp -s "$dir/$name.pub" "$dir/authorized/$name.pub" || cp "$dir/$name.pub" "$dir/authorized/$name.pub"
done
chmod 0750 "$dir" "$dir/authorized"
chmod 0600 "$dir"/*.key
if [[ $(id -u) -eq 0 ]]; then
  chown -R "$uid:$gid" "$dir"
elif [[ $(stat -c %u "$dir/coordinator.key") != "$uid" ]]; then
  echo "compose/keys.sh: the containers run as uid $uid and must read their keys: sudo chown -R $uid:$gid $dir" >&2
fi
[[ -z $made ]] || echo "compose/keys.sh: made CURVE keys for$made in $dir" >&2
