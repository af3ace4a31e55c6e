#!/usr/bin/env bash
# `make docker`: builds the vakra-rs image on a machine without an image registry: the daemon
# (scripts/docker-daemon.sh), the local Debian base (scripts/docker-base.sh), the binary cargo
# built (VAKRA_BINARY, default the release build wherever cargo puts it: scripts/built.sh), then
# `docker compose build` with
# docker/compose.local.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${VAKRA_BINARY:-$(bash scripts/built.sh vakra)}
bash scripts/docker-daemon.sh
bash scripts/docker-base.sh
mkdir -p docker/bin
# Debug information is of no use in the image and would make it several times larger.
strip -o docker/bin/vakra "$binary" 2>/dev/null || cp "$binary" docker/bin/vakra
source scripts/docker-compose.sh
compose build
