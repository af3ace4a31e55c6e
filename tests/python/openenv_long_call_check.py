"""OpenEnv's own client (openenv-core, unmodified) through a long step of `vakra serve --episodes`.

One episode of the given capability-1 sample makes its starting table four times longer, runs a
`like` filter that lasts until the server's call time limit (its keep-alive pings go unanswered
unless the server reads the socket during the step), then submits an answer and must get its
reward. Prints `long call: N s, reward R` and exits non-zero on any failure.

    python openenv_long_call_check.py --base http://127.0.0.1:PORT/openenv --uuid UUID
"""

import argparse
import asyncio
import json
import sys
import time

from openenv.core.generic_client import GenericEnvClient


def handle_of(step):
    text = step.observation["result"]["content"][0]["text"]
    return json.loads(text)["handle"]


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--uuid", required=True)
    args = parser.parse_args()
    async with GenericEnvClient(base_url=args.base) as env:
        reset = await env.reset(uuid=args.uuid)
        books = reset.observation["universe"]["handle"]
        for _ in range(2):
            step = await env.step({"type": "call_tool", "tool_name": "concatenate_data",
                                   "arguments": {"data_label_1": books, "data_label_2": books}})
            books = handle_of(step)
        started = time.monotonic()
        step = await env.step({"type": "call_tool", "tool_name": "filter_data", "arguments": {
            "data_label": books, "key_name": "title", "value": "%" * 300_000,
            "condition": "like"}})
        took = time.monotonic() - started
        text = step.observation["result"]["content"][0]["text"]
        assert "did not finish within" in text, text
        final = await env.step({"type": "submit_answer", "answer": "not the answer"})
        assert final.done and final.reward == 0.0, final
    print(f"long call: {took:.0f} s, reward {final.reward}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
