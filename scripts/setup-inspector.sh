#!/usr/bin/env bash
# Installs the pinned MCP Inspector CLI (npm) in tests/inspector/node_modules (idempotent), for
# crates/vakra-cli/tests/http_clients.rs.
exec bash "$(dirname "$0")/setup-npm.sh" tests/inspector
