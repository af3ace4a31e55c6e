#!/usr/bin/env bash
# Makes the local Debian base image `vakra-base:bookworm` for machines that reach Debian's package
# mirror but no image registry: debootstrap (minbase, plus the SQLite library the binary links)
# into a tarball cached under ~/.cache/vakra-rs, then `docker import`. Idempotent: a cached
# tarball or an existing image is reused.
set -euo pipefail
image=${VAKRA_BASE_IMAGE:-vakra-base:bookworm}
cache=${VAKRA_CACHE:-$HOME/.cache/vakra-rs}
tarball=$cache/debian-bookworm-minbase.tar
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if docker image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi
if [[ ! -s $tarball ]]; then
  command -v debootstrap >/dev/null || apt-get install -y --no-install-recommends debootstrap
  mkdir -p "$cache"
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include=libsqlite3-0,ca-certificates bookworm "$root" "$mirror"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
fi
docker import "$tarball" "$image" >/dev/null
echo "base image $image imported from $tarball"
