#!/usr/bin/env bash
# Makes compose's CURVE keys on first use (make compose-keys, compose-up, compose-test):
#   DIR/coordinator.{key,pub}  the coordinator's pair
#   DIR/worker.{key,pub}       one pair for every worker container
#   DIR/client.{key,pub}       the host's client (and the compose `client` service)
#   DIR/authorized/            the coordinator's allow-list: worker.pub and client.pub
# Existing keys are kept. The containers run as uid 10001, so as root the folder is given to
# that uid (root on the host still reads it); otherwise this says what to run.
# Usage: compose/keys.sh SQUEEZE_BINARY DIR
set -euo pipefail
bin=$1
dir=$2
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
if [[ $(id -u) -eq 0 ]]; then
  chown -R 10001:10001 "$dir"
elif [[ $(stat -c %u "$dir/coordinator.key") != 10001 ]]; then
  echo "compose/keys.sh: the containers run as uid 10001 and must read their keys: sudo chown -R 10001:10001 $dir" >&2
fi
[[ -z $made ]] || echo "compose/keys.sh: made CURVE keys for$made in $dir" >&2
