"""Per-call time of three BPO tools as a Python agent sees it: the official `mcp` client spawns a
server over stdio and times `tools/call` (median of N calls). Runs our `vakra mcp` and, for a side
by side figure, the reference's `environment/bpo/mcp/server.py` alike:

    python scripts/bpo_client_timing.py target/release/vakra 30 . mcp --capability 3 --domain bpo --root R
    python scripts/bpo_client_timing.py python 30 IBM-vakra environment/bpo/mcp/server.py

Arguments: the server command, N, the server's working directory, the server's arguments.
"""
import asyncio
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main(cmd, args, cwd, n):
    params = StdioServerParameters(command=cmd, args=args, cwd=cwd)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            out = {}
            for tool, targs in [("candidate_source_full_candidate_details", {"requisition_id": "05958BR"}),
                                ("skills_skill_analysis", {"requisition_id": "05958BR"}),
                                ("candidate_source_source_sla_check", {"requisition_id": "05958BR"})]:
                ts = []
                for i in range(n):
                    t = time.perf_counter()
                    res = await s.call_tool(tool, targs)
                    ts.append(time.perf_counter() - t)
                out[tool] = (statistics.median(ts) * 1000, len(res.content[0].text) if res.content else 0)
            for k, (ms, size) in out.items():
                print(f"{k:45s} p50 {ms:8.2f} ms  text {size} bytes")

if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[4:], sys.argv[3], int(sys.argv[2])))
