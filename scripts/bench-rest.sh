#!/usr/bin/env bash
# The REST benchmark (docs/benchmarks.md), run on this machine:
#   1. start-up time of `vakra serve` (spawn -> first 200 from /openapi.json), 5 runs;
#   2. load: the request list replayed with 1 connection (5,000 requests) and with
#      16 connections (50,000 requests or 30 s, whichever first);
#   3. the server's resident memory after the load;
#   4. the ceiling: SQLite alone running the statements of the same requests, prepared once, on
#      1 and 2 threads (the example sqlite_ceiling; CEILING=0 skips it).
# Optionally (REF_CMD set) the same two load runs, with smaller counts, against a reference
# server, so the figures can be compared side by side.
#
# Every command is printed before it runs. All traffic goes to 127.0.0.1, every load run is
# bounded in count and time, and every wait is bounded.
#
# Environment (all optional; relative paths are taken from the current directory):
#   VAKRA_BIN  the vakra binary            (default: the release build, scripts/built.sh)
#   LOAD_BIN   the vakra-load binary       (default: the release build, scripts/built.sh)
#   ROOT       data root                   (default: <repo>)
#   DB_ROOT    database root               (default: $ROOT/databases)
#   REQUESTS   JSONL request list, one {"path": ..., "params": {...}} per line
#              (default: <repo>/../shared/conformance/goldens/rest_golden.jsonl)
#   PORT       port for `vakra serve`      (default: 18090)
#   REF_CMD    shell command that starts a reference server on 127.0.0.1:$REF_PORT (optional)
#   REF_PORT   the reference server's port (default: 18091)
#   REF_READY_TIMEOUT  seconds to wait for the reference server to listen (default: 120)
#   CEILING    0 to skip the SQLite ceiling  (default: 1; CEILING_BIN: the example's binary)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Absolute form of a path given relative to the current directory.
absolute() {
    case "$1" in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "$PWD" "$1" ;;
    esac
}

[[ -n ${VAKRA_BIN:-} ]] || VAKRA_BIN=$(cd "$REPO" && bash scripts/built.sh vakra --or-build vakra-cli)
[[ -n ${LOAD_BIN:-} ]] || LOAD_BIN=$(cd "$REPO" && bash scripts/built.sh vakra-load --or-build vakra-bench)
VAKRA_BIN=$(absolute "$VAKRA_BIN")
LOAD_BIN=$(absolute "$LOAD_BIN")
ROOT=$(absolute "${ROOT:-$REPO}")
DB_ROOT=$(absolute "${DB_ROOT:-$ROOT/databases}")
REQUESTS=$(absolute "${REQUESTS:-$REPO/../shared/conformance/goldens/rest_golden.jsonl}")
PORT=${PORT:-18090}
REF_CMD=${REF_CMD:-}
REF_PORT=${REF_PORT:-18091}
REF_READY_TIMEOUT=${REF_READY_TIMEOUT:-120}

SERVER_PID=
REF_PID=
LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bench-rest.XXXXXX")

# Stops whatever this script started; runs on every exit.
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then
        stop_pid "$SERVER_PID" "vakra serve"
    fi
    if [[ -n "$REF_PID" ]]; then
        stop_group "$REF_PID" "reference server"
    fi
    rm -rf "$LOG_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Prints a command (shell-quoted) and runs it.
run() {
    printf '\n$'
    printf ' %q' "$@"
    printf '\n'
    "$@"
}

section() {
    printf '\n== %s ==\n' "$*"
}

die() {
    printf 'bench-rest: %s\n' "$*" >&2
    exit 1
}

# Whether something accepts TCP connections on 127.0.0.1:$1.
listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Waits (at most $3 seconds) until process $2 listens on port $1; fails if it exits first.
wait_listening() {
    local port=$1 pid=$2 seconds=$3 tries
    for ((tries = 0; tries < seconds * 20; tries++)); do
        if listening "$port"; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# SIGTERM to one process, then SIGKILL after 10 s.
stop_pid() {
    local pid=$1 name=$2 tries
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((tries = 0; tries < 200; tries++)); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
        sleep 0.05
    done
    printf 'bench-rest: %s (pid %s) ignored SIGTERM for 10 s; killing it\n' "$name" "$pid" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# SIGTERM to a process group, then SIGKILL after 10 s.
stop_group() {
    local pgid=$1 name=$2 tries
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for ((tries = 0; tries < 200; tries++)); do
        kill -0 -- "-$pgid" 2>/dev/null || { wait "$pgid" 2>/dev/null || true; return 0; }
        sleep 0.05
    done
    printf 'bench-rest: %s (group %s) ignored SIGTERM for 10 s; killing it\n' "$name" "$pgid" >&2
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$pgid" 2>/dev/null || true
}

[[ -x "$VAKRA_BIN" ]] || die "$VAKRA_BIN is not an executable"
[[ -x "$LOAD_BIN" ]] || die "$LOAD_BIN is not an executable"
[[ -f "$REQUESTS" ]] || die "no request list at $REQUESTS (set REQUESTS)"
[[ -d "$DB_ROOT" ]] || die "no database root at $DB_ROOT (set ROOT or DB_ROOT)"
listening "$PORT" && die "port $PORT is already in use (set PORT)"
if [[ -n "$REF_CMD" ]]; then
    listening "$REF_PORT" && die "port $REF_PORT is already in use (set REF_PORT)"
fi

BASE="http://127.0.0.1:$PORT"
SERVE=("$VAKRA_BIN" serve --root "$ROOT" --db-root "$DB_ROOT" --listen "127.0.0.1:$PORT")

section "machine"
printf 'date      %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
printf 'kernel    %s\n' "$(uname -sr)"
printf 'cpu       %s (%s cores)\n' \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" "$(nproc)"
printf 'memory    %s\n' "$(sed -n 's/^MemTotal:[[:space:]]*//p' /proc/meminfo)"
printf 'commit    %s\n' "$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf 'requests  %s (%s lines)\n' "$REQUESTS" "$(wc -l <"$REQUESTS")"

section "vakra serve: start-up time (spawn -> 200 from /openapi.json)"
run "$LOAD_BIN" serve-start --url "$BASE/openapi.json" --runs 5 --timeout 60 -- "${SERVE[@]}"

section "vakra serve: load"
printf '\n$'
printf ' %q' "${SERVE[@]}"
printf ' &\n'
"${SERVE[@]}" >"$LOG_DIR/vakra.log" 2>&1 &
SERVER_PID=$!
if ! wait_listening "$PORT" "$SERVER_PID" 60; then
    cat "$LOG_DIR/vakra.log" >&2
    die "vakra serve did not start listening on port $PORT (it exited, or took over 60 s)"
fi
run "$LOAD_BIN" http --base "$BASE" --requests "$REQUESTS" --connections 1 --count 5000 --duration 30
run "$LOAD_BIN" http --base "$BASE" --requests "$REQUESTS" --connections 16 --count 50000 --duration 30

section "vakra serve: memory after the load"
run "$LOAD_BIN" rss --pid "$SERVER_PID"
stop_pid "$SERVER_PID" "vakra serve"
SERVER_PID=

if [[ -n "$REF_CMD" ]]; then
    REF_BASE="http://127.0.0.1:$REF_PORT"
    section "reference server: load"
    printf '\n$ setsid bash -c %q &\n' "$REF_CMD"
    # Its own process group, so that the whole group can be stopped.
    setsid bash -c "$REF_CMD" >"$LOG_DIR/ref.log" 2>&1 &
    REF_PID=$!
    if ! wait_listening "$REF_PORT" "$REF_PID" "$REF_READY_TIMEOUT"; then
        cat "$LOG_DIR/ref.log" >&2
        die "the reference server did not start listening on port $REF_PORT (it exited, or took over $REF_READY_TIMEOUT s)"
    fi
    run "$LOAD_BIN" http --base "$REF_BASE" --requests "$REQUESTS" --connections 1 --count 1000 --duration 30
    run "$LOAD_BIN" http --base "$REF_BASE" --requests "$REQUESTS" --connections 16 --count 3000 --duration 30
    stop_group "$REF_PID" "reference server"
    REF_PID=
fi

if [[ ${CEILING:-1} != 0 ]]; then
    [[ -n ${CEILING_BIN:-} ]] || CEILING_BIN=$(cd "$REPO" && bash scripts/built.sh sqlite_ceiling --example --or-build vakra-endpoint)
    section "the ceiling: SQLite alone, the same requests' statements prepared once"
    run "$(absolute "$CEILING_BIN")" "$ROOT" "$DB_ROOT" "$REQUESTS" 5 1 2
fi

section "done"
