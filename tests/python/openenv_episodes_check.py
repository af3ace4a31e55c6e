"""Drives `vakra serve --episodes` with OpenEnv's own client (openenv-core, unmodified).

For every sample of the split: one episode plays the ground truth's scored turn step by step
(`call_tool` per call, capability 1's legacy `$label.data_path$` references bound to the handles
the episode's own answers named) and submits the ground-truth answer, which must earn 1; a
second episode submits a wrong answer without calls, which must earn 0. Prints
`N passed, M failed` and exits non-zero on any failure.

    python openenv_episodes_check.py --base http://127.0.0.1:PORT/openenv --split demo/tasks
"""

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path

from openenv.core.generic_client import GenericEnvClient

REFERENCE = re.compile(r"^\$(.+)\.data_path\$$")
LIVE_KEYS = {"data_source": "data_label", "data_source_1": "data_label_1",
             "data_source_2": "data_label_2"}


def ground_truth(split: Path):
    for folder in sorted(split.glob("capability_*")):
        for path in sorted((folder / "output").glob("*.json")):
            for record in json.loads(path.read_text()):
                turn = record["output"][-1]
                yield folder.name, record["uuid"], turn


def answer_text(answer):
    if isinstance(answer, list):
        return ", ".join(str(a) for a in answer)
    return str(answer)


def handle_of(result):
    text = (result or {}).get("content", [{}])[0].get("text", "")
    match = re.match(r'^\{"handle": "([^"]+)"', text)
    return match.group(1) if match else None


async def play(base: str, uuid: str, turn: dict) -> float:
    async with GenericEnvClient(base_url=base) as env:
        reset = await env.reset(uuid=uuid)
        observation = reset.observation
        assert not reset.done and observation["uuid"] == uuid, observation
        assert observation["tools"], "the reset lists the tools"
        handles = {}
        for call in turn["sequence"].get("tool_call", []):
            name, arguments = call["name"], dict(call.get("arguments") or {})
            if name == "initialize_active_data":
                handles[call.get("label")] = observation["universe"]["handle"]
                continue
            live = {}
            for key, value in arguments.items():
                if key in LIVE_KEYS and isinstance(value, str) and REFERENCE.match(value):
                    live[LIVE_KEYS[key]] = handles.get(REFERENCE.match(value).group(1), value)
                else:
                    live[key] = value
            step = await env.step({"type": "call_tool", "tool_name": name, "arguments": live})
            assert not step.done, step
            result = step.observation["result"]
            if call.get("label") and handle_of(result):
                handles[call["label"]] = handle_of(result)
        final = await env.step({"type": "submit_answer", "answer": answer_text(turn["answer"])})
        assert final.done, final
        return final.reward


async def wrong(base: str, uuid: str) -> float:
    async with GenericEnvClient(base_url=base) as env:
        await env.reset(uuid=uuid)
        tools = await env.step({"type": "list_tools"})
        assert tools.observation["tools"], tools
        final = await env.step({"type": "submit_answer", "answer": "certainly not the answer"})
        state = await env.state()
        assert state["done"] and state["reward"] == final.reward, state
        return final.reward


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--split", required=True, type=Path)
    args = parser.parse_args()
    passed = failed = 0
    for folder, uuid, turn in ground_truth(args.split):
        for label, expected, episode in (
            ("ground truth", 1.0, play(args.base, uuid, turn)),
            ("wrong answer", 0.0, wrong(args.base, uuid)),
        ):
            try:
                reward = await episode
            except Exception as error:  # noqa: BLE001 - every failure is reported
                reward = f"error: {error!r}"
            if reward == expected:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {folder} {uuid} {label}: reward {reward}, expected {expected}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
