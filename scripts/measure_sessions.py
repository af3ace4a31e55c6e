#!/usr/bin/env python3
"""Memory of `vakra serve` per open MCP session, for sizing (docs/deployment.md).

Opens SESSIONS sessions over streamable HTTP at once and keeps them open while the server's
resident memory (VmRSS of PID) is read: after start, with the sessions open and idle
(capability 2), and with capability-1 sessions each holding a universe's table data
(`get_data`). Loopback only, bounded by the session count.

    python scripts/measure_sessions.py --base http://127.0.0.1:8000 --pid PID --sessions 200

With --mixed, SESSIONS sessions of capabilities 1 to 4 in turn (--capabilities) are opened with plain HTTP
requests (`initialize`, `notifications/initialized`; `get_data` on capability 1) over at most
--connections kept connections, without the standalone GET stream the SDK also opens (a client
may omit it), and all are kept open while VmRSS is read. The server needs --max-sessions and
--max-client-sessions above SESSIONS, and a --session-idle-secs longer than the run.

    python scripts/measure_sessions.py --base http://127.0.0.1:8000 --pid PID --sessions 10000 --mixed
"""

import argparse
import asyncio
import contextlib
import json
import logging

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


def status_mib(pid, field="VmRSS"):
    """A memory figure of /proc/PID/status (VmRSS: resident now, VmHWM: its peak), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field}")


async def open_sessions(stack, url, count):
    sessions = []
    for _ in range(count):
        read, write, _ = await stack.enter_async_context(streamablehttp_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        sessions.append(session)
    return sessions


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "measure_sessions", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def answer_of(response):
    """The JSON-RPC answer of a POST, sent as JSON or as an event stream."""
    response.raise_for_status()
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    for line in response.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])
    raise RuntimeError("no answer in the event stream")


async def open_raw(client, url, universe):
    """One session at `url` opened with plain requests; `get_data` when it is capability 1."""
    headers = {"accept": "application/json, text/event-stream"}
    opened = await client.post(url, json=INITIALIZE, headers=headers)
    answer_of(opened)
    headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-06-18"
    (await client.post(url, json=INITIALIZED, headers=headers)).raise_for_status()
    if "/mcp/1/" in url:
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_data", "arguments": {"tool_universe_id": universe}}}
        result = answer_of(await client.post(url, json=call, headers=headers))["result"]
        assert not result.get("isError"), result


async def mixed(a):
    import resource

    import httpx

    # Each kept connection is a descriptor here and in the server.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * a.connections)), hard))
    limits = httpx.Limits(max_connections=a.connections, max_keepalive_connections=a.connections)
    start = status_mib(a.pid)
    counts = {}
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        pending = set()
        capabilities = [int(c) for c in a.capabilities.split(",")]
        for i in range(a.sessions):
            capability = capabilities[i % len(capabilities)]
            counts[capability] = counts.get(capability, 0) + 1
            url = f"{a.base}/mcp/{capability}/library"
            pending.add(asyncio.ensure_future(open_raw(client, url, a.universe)))
            if len(pending) >= a.connections:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
        for task in asyncio.as_completed(pending):
            await task
    await asyncio.sleep(2)
    held = status_mib(a.pid)
    figures = {
        "sessions": a.sessions,
        "by_capability": counts,
        "start_mib": round(start, 1),
        "sessions_open_mib": round(held, 1),
        "per_session_kib": round((held - start) * 1024 / a.sessions, 1),
        "peak_mib": round(status_mib(a.pid, "VmHWM"), 1),
    }
    print(json.dumps(figures, indent=1))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--universe", default="11b7a0c0ffee-000000000002")
    parser.add_argument("--mixed", action="store_true")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--capabilities", default="1,2,3,4")
    a = parser.parse_args()
    if a.mixed:
        await mixed(a)
        return
    figures = {"start_mib": status_mib(a.pid)}
    async with contextlib.AsyncExitStack() as stack:
        await open_sessions(stack, f"{a.base}/mcp/2/library", a.sessions)
        await asyncio.sleep(1)
        figures["idle_sessions_mib"] = status_mib(a.pid)
    async with contextlib.AsyncExitStack() as stack:
        sessions = await open_sessions(stack, f"{a.base}/mcp/1/library", a.sessions)
        for session in sessions:
            result = await session.call_tool("get_data", {"tool_universe_id": a.universe})
            assert not result.isError, result
        await asyncio.sleep(1)
        figures["universe_sessions_mib"] = status_mib(a.pid)
    n = a.sessions
    figures["sessions"] = n
    figures["per_idle_session_kib"] = round(
        (figures["idle_sessions_mib"] - figures["start_mib"]) * 1024 / n, 1)
    figures["per_universe_session_kib"] = round(
        (figures["universe_sessions_mib"] - figures["idle_sessions_mib"]) * 1024 / n, 1)
    print(json.dumps(figures, indent=1))


# The SDK logs each DELETE answered 202 (vakra, as rmcp, accepts it) as a failed termination.
logging.disable(logging.WARNING)
asyncio.run(main())
