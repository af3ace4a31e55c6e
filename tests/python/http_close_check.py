"""Open and close MCP sessions over streamable HTTP with the official Python client and check
that the client logs no warning or error (its session-termination DELETE must be answered as
the SDK expects), at the usual endpoint and at the one ending in /mcp. Prints one line per
check and a final "N passed, M failed"."""
import argparse
import asyncio
import logging
import sys

from mcp import ClientSession
try:  # mcp 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client
except ImportError:  # mcp 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.name}: {record.getMessage()}")


results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


async def open_and_close(url, tool):
    async with http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            result = await session.call_tool(tool, {})
    return [t.name for t in tools], result


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    args = parser.parse_args()
    collected = Collect()
    logging.getLogger().addHandler(collected)
    logging.getLogger().setLevel(logging.INFO)
    for path in ["/mcp/1/library", "/mcp/1/library/mcp"]:
        collected.records.clear()
        names, result = await open_and_close(args.base + path, "get_data")
        await asyncio.sleep(0.2)
        check(f"{path}: tools listed and called", "get_data" in names and not getattr(result, "isError", getattr(result, "is_error", None)),
              names)
        check(f"{path}: closed with nothing logged", not collected.records, collected.records)
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    sys.exit(0 if all(results) else 1)


asyncio.run(main())
