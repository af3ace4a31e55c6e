"""Drive vakra's capability-1 server with the official Python MCP client (not written here).

Over stdio: the startup toolset, a universe switch announced by notifications/tools/list_changed
and followed by the new toolset with its getters, handles chained through tools. Over streamable
HTTP: two sessions of the same domain, whose handles stay their own, and a session that keeps
its handles and toolset from one request to the next. Prints one line per check and a final
"N passed, M failed".
"""
import argparse
import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


def text(result):
    return result.content[0].text


class Notifications:
    def __init__(self):
        self.list_changed = 0

    async def __call__(self, message):
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            self.list_changed += 1


async def stdio_checks(vakra, root):
    params = StdioServerParameters(
        command=vakra, args=["mcp", "--capability", "1", "--domain", "weather", "--root", root]
    )
    seen = Notifications()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=seen) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            check("stdio: SEL-BIRD at startup, no getters", len(names) == 26 and names[-1] == "get_data"
                  and not any(n.startswith("get_") and n != "get_data" for n in names), names)
            peek = json.loads(text(await session.call_tool(
                "get_data", {"tool_universe_id": "3ea7e0c0ffee-000000000002"})))
            await asyncio.sleep(0.2)
            check("stdio: list_changed announced", seen.list_changed >= 1, seen.list_changed)
            names = [t.name for t in (await session.list_tools()).tools]
            check("stdio: getters listed after the switch",
                  "get_stations_citys" in names and names[0] == "get_observations_obs_ids", names[:3])
            handle = peek["handle"]
            filtered = json.loads(text(await session.call_tool("select_data_equal_to", {
                "data_label": handle, "key_name": "stations_city", "value": "Toronto"})))
            cities = json.loads(text(await session.call_tool(
                "get_stations_citys", {"data_label": filtered["handle"]})))
            check("stdio: chained handles", filtered["num_records"] > 0 and set(cities) == {"Toronto"},
                  (filtered["num_records"], cities[:3]))
            bad = await session.call_tool("select_data_equal_to", {"data_label": handle, "key_name": "x"})
            check("stdio: schema error", bad.isError and text(bad).startswith("Input validation error: "),
                  text(bad))


async def http_checks(base):
    url = base + "/mcp/1/library"
    async with streamablehttp_client(url) as (read_a, write_a, _):
        async with ClientSession(read_a, write_a) as a:
            await a.initialize()
            async with streamablehttp_client(url) as (read_b, write_b, _):
                async with ClientSession(read_b, write_b) as b:
                    await b.initialize()
                    pa = json.loads(text(await a.call_tool(
                        "get_data", {"tool_universe_id": "11b7a0c0ffee-000000000002"})))
                    check("http: session A switched", pa["handle"] == "retrieved_books_1", pa["handle"])
                    pb = json.loads(text(await b.call_tool("get_data", {})))
                    check("http: session B has its own counter and universe",
                          pb["handle"] == "retrieved_book_1"
                          and len(pb["key_details"]) != len(pa["key_details"]), pb["handle"])
                    fa = await a.call_tool("filter_data", {"data_label": pa["handle"],
                        "key_name": "authors_country", "value": "Germany", "condition": "equal_to"})
                    check("http: session A keeps its handles between requests",
                          text(fa).startswith('{"handle": "filtered_books_1"'), text(fa)[:80])
                    fb = await b.call_tool("filter_data", {"data_label": "filtered_books_1",
                        "key_name": "genre", "value": "x", "condition": "equal_to"})
                    check("http: session B cannot see A's handles",
                          "Input should be a valid dictionary" in text(fb), text(fb)[:120])


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vakra", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--base", required=True)
    args = parser.parse_args()
    await stdio_checks(args.vakra, args.root)
    await http_checks(args.base)
    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
