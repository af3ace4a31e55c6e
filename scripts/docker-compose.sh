# Sourced: `compose ARGS…` runs Docker Compose (the v2 plugin, or Debian's docker-compose) on
# docker/compose.yaml with the local-build override.
compose() {
  local files=(-f docker/compose.yaml -f docker/compose.local.yaml)
  if docker compose version >/dev/null 2>&1; then
    docker compose "${files[@]}" "$@"
  else
    docker-compose "${files[@]}" "$@"
  fi
}
