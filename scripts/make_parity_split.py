"""Makes a split for runner parity on imported domains from the conformance recordings
(../shared/conformance/goldens/mcp: cap1-<domain>.calls.jsonl, cap2-<domain>.calls.jsonl).

Every recorded call becomes a sample whose ground truth is that call (capability 1: a
universe's get_data and the calls after it), so that a stand-in playing the ground truth makes
both runners call tools with values that exist in the synthetic databases. Questions are made
from the tool names; capability 4 gets a two-turn dialogue and a policy. The split holds
recorded texts of the reference: write it to a temporary folder, never into the repository.

usage: make_parity_split.py GOLDENS_MCP_DIR OUT [PER_DOMAIN]"""
import json, os, sys
from collections import defaultdict

goldens, out = sys.argv[1], sys.argv[2]
per_domain = int(sys.argv[3]) if len(sys.argv) > 3 else 4
FOLDERS = {1: "capability_1_bi_apis", 2: "capability_2_dashboard_apis",
           3: "capability_3_multihop_reasoning", 4: "capability_4_multiturn"}


def calls(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write(capability, domain, inputs, outputs):
    for kind, rows in (("input", inputs), ("output", outputs)):
        folder = os.path.join(out, FOLDERS[capability], kind)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{domain}.json"), "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


def turn(turn_id, query, steps):
    return {"turn_id": turn_id, "query": query, "answer": [steps[-1]["texts"][0] if steps[-1]["texts"] else ""],
            "sequence": {"tool_call": [{"name": s["tool"], "arguments": s["arguments"]} for s in steps],
                         "tool_response": [s["texts"][0] if s["texts"] else "" for s in steps]}}


def question(step):
    words = step["tool"].replace("_", " ")
    return f"What does {words} give for {json.dumps(step['arguments'], ensure_ascii=False)}?"


for name in sorted(os.listdir(goldens)):
    if name.startswith("cap2-") and name.endswith(".calls.jsonl"):
        domain = name[len("cap2-"):-len(".calls.jsonl")]
        steps = [s for s in calls(os.path.join(goldens, name)) if not s.get("is_error")][:per_domain + 1]
        for capability in (2, 3):
            inputs, outputs = [], []
            for i, step in enumerate(steps[:per_domain]):
                uuid = f"parity-{capability}-{domain}-{i}"
                q = question(step)
                inputs.append({"uuid": uuid, "domain": domain, "num_turns": 1,
                               "dialogue": {"turns": [{"turn_id": 0, "query": q}]}, "additional_instructions": ""})
                outputs.append({"uuid": uuid, "domain": domain, "additional_instructions": "", "output": [turn(0, q, [step])]})
            write(capability, domain, inputs, outputs)
        inputs, outputs = [], []
        policy = f"Only use the {domain} tools; answer in one sentence"
        for i in range(min(per_domain, len(steps) - 1)):
            first, second = steps[i], steps[i + 1]
            uuid = f"parity-4-{domain}-{i}"
            turns = [(0, question(first), first), (1, question(second), second)]
            inputs.append({"uuid": uuid, "domain": domain, "num_turns": 2,
                           "dialogue": {"turns": [{"turn_id": t, "query": q} for t, q, _ in turns]},
                           "additional_instructions": policy if i % 2 == 0 else ""})
            outputs.append({"uuid": uuid, "domain": domain, "additional_instructions": policy if i % 2 == 0 else "",
                            "output": [turn(t, q, [s]) for t, q, s in turns]})
        write(4, domain, inputs, outputs)
    if name.startswith("cap1-") and name.endswith(".calls.jsonl"):
        domain = name[len("cap1-"):-len(".calls.jsonl")]
        universes = defaultdict(list)
        for step in calls(os.path.join(goldens, name)):
            prefix = step["step"].split(".")[0]
            if step.get("tool") not in (None, "list_tools") and "arguments" in step:
                universes[prefix].append(step)
        inputs, outputs = [], []
        for prefix, steps in list(universes.items())[:per_domain]:
            if not steps or steps[0]["tool"] != "get_data" or steps[0].get("is_error"):
                continue
            uuid = steps[0]["arguments"]["tool_universe_id"]
            q = f"Which values does the data show after {', '.join(s['tool'] for s in steps[1:]) or 'loading it'}?"
            inputs.append({"uuid": uuid, "domain": domain, "num_turns": 1,
                           "dialogue": {"turns": [{"turn_id": 0, "query": q}]}, "additional_instructions": ""})
            outputs.append({"uuid": uuid, "domain": domain, "additional_instructions": "", "output": [turn(0, q, steps)]})
        write(1, domain, inputs, outputs)
