#!/usr/bin/env python3
"""Memory of `vakra serve` per open MCP session, for sizing (docs/deployment.md).

Opens SESSIONS sessions over streamable HTTP at once and keeps them open while the server's
resident memory (VmRSS of PID) is read: after start, with the sessions open and idle
(capability 2), and with capability-1 sessions each holding a universe's table data
(`get_data`). Loopback only, bounded by the session count.

    python scripts/measure_sessions.py --base http://127.0.0.1:8000 --pid PID --sessions 200
"""

import argparse
import asyncio
import contextlib
import json
import logging

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def open_sessions(stack, url, count):
    sessions = []
    for _ in range(count):
        read, write, _ = await stack.enter_async_context(streamablehttp_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        sessions.append(session)
    return sessions


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--universe", default="11b7a0c0ffee-000000000002")
    a = parser.parse_args()
    figures = {"start_mib": rss_mib(a.pid)}
    async with contextlib.AsyncExitStack() as stack:
        await open_sessions(stack, f"{a.base}/mcp/2/library", a.sessions)
        await asyncio.sleep(1)
        figures["idle_sessions_mib"] = rss_mib(a.pid)
    async with contextlib.AsyncExitStack() as stack:
        sessions = await open_sessions(stack, f"{a.base}/mcp/1/library", a.sessions)
        for session in sessions:
            result = await session.call_tool("get_data", {"tool_universe_id": a.universe})
            assert not result.isError, result
        await asyncio.sleep(1)
        figures["universe_sessions_mib"] = rss_mib(a.pid)
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
