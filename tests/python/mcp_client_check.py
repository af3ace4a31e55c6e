"""Drive vakra's MCP servers with the official Python MCP client (not written here).

Checks, over stdio and over streamable HTTP: the handshake, tools/list (names, order,
schemas), a successful call whose text must equal Python's own json.dumps(indent=2) of the
REST body for the same request, an argument-validation error, an unknown tool, and an error
text for a failing request. Prints one line per check and a final "N passed, M failed".
"""
import argparse
import asyncio
import json
import sys
import urllib.parse
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


def rest_json(base, path, params):
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read().decode("utf-8"))


async def exercise(label, session, rest_base, domain):
    init = await session.initialize()
    check(f"{label}: initialize", init.capabilities.tools is not None, init)
    listed = (await session.list_tools()).tools
    names = [t.name for t in listed]
    check(f"{label}: tools listed", len(listed) > 0 and len(set(names)) == len(names), names[:5])
    openapi = rest_json(rest_base, "/openapi.json", {})
    expected = [op["operationId"] for path, item in openapi["paths"].items()
                for op in item.values() if path.startswith(f"/v1/{domain}")]
    check(f"{label}: tool order equals the OpenAPI path order", names == expected,
          f"{names[:3]} vs {expected[:3]}")
    for tool in listed:
        schema = tool.inputSchema
        good = list(schema) == ["type", "properties", "required"] and schema["type"] == "object"
        if not good:
            check(f"{label}: schema shape of {tool.name}", False, schema)
            break
    else:
        check(f"{label}: every schema is {{type, properties, required}}", True)

    # a call without required arguments, checked against the REST API
    tool = next(t for t in listed if not t.inputSchema["required"])
    path = next(p for p, item in openapi["paths"].items() if item["get"]["operationId"] == tool.name)
    result = await session.call_tool(tool.name, {})
    text = result.content[0].text
    want = json.dumps(rest_json(rest_base, path, {}), indent=2)
    check(f"{label}: {tool.name} text equals json.dumps(REST body, indent=2)", text == want and not result.isError,
          f"{text[:200]!r} vs {want[:200]!r}")

    needy = next(t for t in listed if t.inputSchema["required"])
    missing = needy.inputSchema["required"][0]
    result = await session.call_tool(needy.name, {})
    check(f"{label}: missing argument is a validation error", result.isError and
          result.content[0].text == f"Input validation error: '{missing}' is a required property",
          result.content[0].text)

    result = await session.call_tool("no_such_tool", {})
    check(f"{label}: unknown tool", result.isError and result.content[0].text == "Tool no_such_tool not found",
          result.content[0].text)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vakra", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--rest", required=True, help="base URL of a running `vakra serve`")
    ap.add_argument("--domain", default="library")
    a = ap.parse_args()

    params = StdioServerParameters(command=a.vakra, args=["mcp", "--capability", "2", "--domain", a.domain,
                                                          "--root", a.root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise("stdio", session, a.rest, a.domain)

    async with streamablehttp_client(f"{a.rest}/mcp/2/{a.domain}") as (read, write, _):
        async with ClientSession(read, write) as session:
            await exercise("http", session, a.rest, a.domain)

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
