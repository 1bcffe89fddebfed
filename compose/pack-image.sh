#!/usr/bin/env bash
# Builds the compose file's image without a registry: the host-built squeeze binary with every
# shared library ldd lists (and the loader) and libzmq with its own, in a FROM scratch image that runs as uid 10001 by
# default like the Dockerfile's (compose runs it as the data folder's owner: SQUEEZE_UID).
# For podman on machines where the Swift and Debian base images cannot be pulled; with Docker,
# `docker compose build` uses compose/Dockerfile instead.
# The image is labelled with a digest of its files: when the binary and libraries have not
# changed, the image is left as it is (so `make compose-up` while a job runs recreates no
# container); when they have, the image it replaces is removed if nothing uses it.
#   compose/pack-image.sh BINARY IMAGE
set -euo pipefail
binary=${1:?usage: pack-image.sh BINARY IMAGE}
image=${2:?usage: pack-image.sh BINARY IMAGE}
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp" "$context/rootfs/data" "$context/rootfs/etc"
install -m 0755 "$binary" "$context/rootfs/usr/local/bin/squeeze"
# libzmq is not among them: squeeze loads it when it first opens a socket (dlopen), so it and
# its own libraries are added by name.
# awk reads to the end: an early exit would kill ldconfig with SIGPIPE, fatal under pipefail.
libzmq=$(ldconfig -p | awk '$1 == "libzmq.so.5" && !found { print $NF; found = 1 }')
[[ -n $libzmq ]] || { echo "pack-image: libzmq.so.5 is not installed (apt-get install libzmq5)" >&2; exit 1; }
{ ldd "$binary"; printf '\tlibzmq.so.5 => %s (0x0)\n' "$libzmq"; ldd "$libzmq"; } \
  | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | sort -u | while read -r library; do
  cp --parents -L "$library" "$context/rootfs/"
done
chmod 1777 "$context/rootfs/tmp"
# The default user only; any other uid (compose's SQUEEZE_UID) runs without an entry here.
printf 'squeeze:x:10001:10001::/tmp:/sbin/nologin\n' > "$context/rootfs/etc/passwd"

digest=$(cd "$context/rootfs" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
previous=$(podman image inspect --format '{{.Id}} {{index .Labels "squeeze.rootfs"}}' "$image" 2>/dev/null || true)
if [[ ${previous#* } == "$digest" ]]; then
  echo "compose: $image is up to date with $binary" >&2
  exit 0
fi

cat > "$context/Containerfile" <<CONTAINERFILE
FROM scratch
COPY rootfs/ /
LABEL squeeze.rootfs=$digest
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/squeeze"]
CMD ["--help"]
CONTAINERFILE
podman build -q -t "$image" "$context" >/dev/null
echo "compose: built $image from $binary" >&2
# The replaced image, now untagged, unless a container still uses it.
if [[ -n $previous ]]; then
  podman rmi "${previous%% *}" >/dev/null 2>&1 || true
fi
