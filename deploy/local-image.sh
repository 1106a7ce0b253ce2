#!/bin/bash
# Builds localhost/switchboard:local without a registry: a root filesystem assembled from this
# machine's node and ghostscript (with the shared libraries they and the native addons load),
# the built package (npm run build first) and its node_modules, imported with `podman import`.
# For machines that cannot pull docker.io/library/node:20-bookworm-slim; the Containerfile is
# the real build. Usage: deploy/local-image.sh [node_modules dir] (default ./node_modules).
# PODMAN may carry storage flags, e.g. PODMAN="podman --root /tmp/x/storage --runroot /tmp/x/run".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODULES=$(readlink -f "${1:-$ROOT/node_modules}")
PODMAN=${PODMAN:-podman}
WORK=$(mktemp -d)
R="$WORK/rootfs"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$R"/{app,data,tmp,etc,usr/local/bin,usr/bin,usr/share}
chmod 1777 "$R/tmp"
cp "$(command -v node)" "$R/usr/local/bin/node"
cp "$(command -v gs)" "$R/usr/bin/gs"
libs() { ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true; }
{
  libs "$(command -v node)"
  libs "$(command -v gs)"
  find -L "$MODULES" -name '*.node' -type f 2>/dev/null | while read -r f; do libs "$f"; done
} | sort -u | while read -r lib; do [ -e "$lib" ] && cp -L --parents "$lib" "$R"; done
cp -aL /usr/share/ghostscript "$R/usr/share/" 2>/dev/null || true
cp -a /etc/ssl "$R/etc/" 2>/dev/null || true
printf 'root:x:0:0:root:/root:/bin/false\nswitchboard:x:10001:10001::/nonexistent:/usr/sbin/nologin\n' > "$R/etc/passwd"
printf 'root:x:0:\nswitchboard:x:10001:\n' > "$R/etc/group"
chown 10001:10001 "$R/data"
chmod 0700 "$R/data"
(cd "$ROOT" && tar -c --exclude=./node_modules --exclude=./.git --exclude=./data .) | tar -x -C "$R/app"
cp -aL "$MODULES" "$R/app/node_modules"
tar -C "$R" -c . | $PODMAN import \
  --change 'USER=10001:10001' --change 'WORKDIR=/app' \
  --change 'ENV=NODE_ENV=production' --change 'ENV=DATA_DIR=/data' --change 'ENV=HOST=0.0.0.0' --change 'ENV=PORT=8080' \
  --change 'VOLUME=/data' --change 'EXPOSE=8080' \
  --change 'ENTRYPOINT=["/usr/local/bin/node"]' --change 'CMD=["dist/host/main.js"]' \
  - localhost/switchboard:local
# `podman import` cannot set HEALTHCHECK: give it at run time, in exec form (the image has no shell):
#   --health-cmd '["node","-e","fetch(\"http://127.0.0.1:8080/health\").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]'
