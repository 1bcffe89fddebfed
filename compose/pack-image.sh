#!/usr/bin/env bash
# Builds the compose file's image without a registry: the host-built squeeze binary with every
# shared library ldd lists (and the loader), in a FROM scratch image running as uid 10001 like
# the Dockerfile's. For podman on machines where the Swift and Debian base images cannot be
# pulled; with Docker, `docker compose build` uses compose/Dockerfile instead.
#   compose/pack-image.sh BINARY IMAGE
set -euo pipefail
binary=${1:?usage: pack-image.sh BINARY IMAGE}
image=${2:?usage: pack-image.sh BINARY IMAGE}
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp" "$context/rootfs/data"
install -m 0755 "$binary" "$context/rootfs/usr/local/bin/squeeze"
ldd "$binary" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | sort -u | while read -r library; do
  cp --parents -L "$library" "$context/rootfs/"
done
chmod 1777 "$context/rootfs/tmp"
printf 'squeeze:x:10001:10001::/tmp:/sbin/nologin\n' > "$context/rootfs/etc.passwd"
mkdir -p "$context/rootfs/etc" && mv "$context/rootfs/etc.passwd" "$context/rootfs/etc/passwd"
cat > "$context/Containerfile" <<'CONTAINERFILE'
FROM scratch
COPY rootfs/ /
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/squeeze"]
CMD ["--help"]
CONTAINERFILE
podman build -q -t "$image" "$context" >/dev/null
echo "compose: built $image from $binary" >&2
