"""Records what the reference BPO server answers to a broad set of calls, for
tests/reference_goldens.rs (run with VAKRA_BPO_GOLDENS=<output file>, and
VAKRA_BPO_GOLDENS_DATA=<data folder> when recorded with --data).

Needs a checkout of the reference (VAKRA_REF, default /tmp/vakra-ref) with its BPO data, and
fastmcp 2.14.x, pandas 2.x, pyarrow, rapidfuzz, loguru and fastapi (the server module imports
it) in the Python that runs it; scripts/conformance.sh makes such an environment, records into a
temporary folder and runs the comparison with VAKRA_REQUIRE_REF_CHECKOUT=1:

    python record_goldens.py /tmp/bpo_goldens.json
    python record_goldens.py --data bpo /tmp/bpo_demo_goldens.json   # the reference's code on
                                                                     # the demo's candidate_data.jsonl

The output stays outside the repository: it is derived from the reference's data. Each session
starts from the state of a freshly started server (the module-level random generator re-seeded
with 42, the call counters cleared), as a new MCP session of the reference would.
"""

import argparse
import asyncio
import json
import logging
import os
import random
import sys

REF = os.environ.get("VAKRA_REF", "/tmp/vakra-ref")
sys.path.insert(0, REF)
logging.disable(logging.CRITICAL)

from loguru import logger  # noqa: E402

logger.remove()

import pandas as pd  # noqa: E402

from environment.bpo.api import candidate_source_error  # noqa: E402
from environment.bpo.api.data_loader import get_data_loader  # noqa: E402
from environment.bpo.mcp import server  # noqa: E402
from fastmcp import Client  # noqa: E402

server.track_tool_call = lambda name: None

TOOLS_REQ_ONLY = [
    "candidate_source_sla_per_source",
    "candidate_source_total_hires_by_source",
    "candidate_source_candidate_volume_by_source",
    "candidate_source_funnel_conversion_by_source",
    "candidate_source_metadata_and_timeframe",
    "candidate_source_definitions_and_methodology",
    "candidate_source_source_recommendation_summary",
    "skills_skill_analysis",
    "skills_data_sources_used",
    "skills_skill_summary",
    "candidate_source_source_sla_score",
    "candidate_source_inactive_sources",
    "candidate_source_candidate_pipeline_status",
    "candidate_source_source_sla_check",
    "candidate_source_funnel_status",
    "candidate_source_bulk_source_data",
    "skills_model_registry",
    "skills_skill_lookup",
    "candidate_source_source_metrics_lite",
    "candidate_source_volume_report",
    "candidate_source_source_directory",
    "skills_skill_deep_analysis",
    "candidate_source_sla_extended",
    "candidate_source_requisition_details",
    "candidate_source_list_all_sources",
    "candidate_source_batch_metrics",
]
SKILL_TOOLS = [
    "skills_skill_impact_fill_rate",
    "skills_skill_impact_sla",
    "skills_skill_relevance_justification",
    "skills_skill_lookup",
]


def use_jsonl(folder):
    """Replaces the loaded data with a candidate_data.jsonl, parsed as pandas reads parquet."""
    data = pd.read_json(os.path.join(folder, "candidate_data.jsonl"), lines=True, dtype=False)
    for column in ["applied_at", "reviewed_at", "interviewed_at", "offer_extended_at", "hire_date"]:
        data[column] = pd.to_datetime(data[column])
    loader = get_data_loader()
    loader._data = data
    loader._data["skills_parsed"] = loader._data["skills"].apply(
        lambda x: __import__("ast").literal_eval(x) if x else [])


def sessions(reference_data):
    data = get_data_loader().data
    ids = list(data["requisition_id"].unique())
    rng = random.Random(7)
    sample = ids[:6] + rng.sample(ids[6:], min(14, len(ids) - 6))
    skills = list(pd.Series([s for l in data["skills_parsed"] for s in l]).value_counts().index[:6])
    skills += ["Quantum Physics", "Nope", ""]
    sources = sorted(data["source_name"].unique()) + ["Nope", "dice"]

    per_requisition = []
    for rid in sample:
        calls = [(tool, {"requisition_id": rid}) for tool in TOOLS_REQ_ONLY]
        calls.append(("skills_successful_posting_criteria", {}))
        for skill in skills:
            for tool in SKILL_TOOLS:
                calls.append((tool, {"requisition_id": rid, "skill_name": skill}))
            calls.append(("skills_analyze_skill_match", {"requisition_id": rid, "skill_id": skill}))
        for source in sources:
            calls.append(("candidate_source_source_sla_score", {"requisition_id": rid, "source_name": source}))
            calls.append(("candidate_source_sla_extended", {"requisition_id": rid, "source_name": source}))
        for subset in [None, [], ["Dice"], ["Dice", "GitHub", "Nope"], ["dice"]]:
            calls.append(("candidate_source_candidate_volume_by_source", {"requisition_id": rid, "sources": subset}))
        per_requisition.append(calls)
    if reference_data:
        per_requisition[0].append(("candidate_source_full_candidate_details", {"requisition_id": ids[0]}))

    queries = ["05960BR", "99999BR", "UZLXBR", "", "5958", "05958br", "REQ", "REQ0055", "req00558",
               "05958 BR", "BR 05958", "ReQ 00558 x", " ", "REQ00558 REQ00559", "0595", "REQ01048",
               "a" * 300, "REQ00558" * 40, "é05958BR", "05958BR\u00a0x", "05958BR\u2003x", "ü ü ü",
               "\U0001F600", "REQ 00558 00558", "8BR", "BR", "R", "REQ 0 0 5 5 8"]
    for _ in range(600):
        length = rng.randint(1, 14)
        alphabet = "0123456789BRREQ   brq-_x"
        queries.append("".join(rng.choice(alphabet) for _ in range(length)))
    for _ in range(200):
        base = rng.choice(ids)
        pos = rng.randint(0, len(base) - 1)
        op = rng.randint(0, 2)
        if op == 0:
            q = base[:pos] + base[pos + 1:]
        elif op == 1:
            q = base[:pos] + rng.choice("0123456789BRQ ") + base[pos:]
        else:
            q = base[:pos] + rng.choice("0123456789") + base[pos + 1:]
        queries.append(q)
    invalid = []
    for q in queries:
        if q in ids:
            continue
        invalid.append(("skills_data_sources_used", {"requisition_id": q}))
    for q in queries[:30]:
        for tool in TOOLS_REQ_ONLY:
            invalid.append((tool, {"requisition_id": q}))
        invalid.append(("skills_skill_impact_sla", {"requisition_id": q, "skill_name": "Python"}))

    bad = [
        ("nope", {}),
        ("candidate_source_sla_per_source", {}),
        ("candidate_source_sla_per_source", {"requisition_id": 5}),
        ("candidate_source_sla_per_source", {"requisition_id": None}),
        ("candidate_source_sla_per_source", {"requisition_id": True}),
        ("candidate_source_sla_per_source", {"requisition_id": 1.5}),
        ("candidate_source_sla_per_source", {"requisition_id": [1, "a"]}),
        ("candidate_source_sla_per_source", {"requisition_id": {"k": [None, False]}}),
        ("candidate_source_sla_per_source", {"requisition_id": "05958BR", "extra": "x" * 80}),
        ("candidate_source_sla_per_source", {"x": "é" * 40, "y": 2}),
        ("skills_skill_impact_sla", {}),
        ("skills_skill_impact_sla", {"zzz": 1, "requisition_id": 5}),
        ("skills_skill_impact_sla", {"skill_name": 5, "requisition_id": 6, "b": [1, 2], "a": {"k": "v"}}),
        ("candidate_source_candidate_volume_by_source", {"requisition_id": "05958BR", "sources": "Dice"}),
        ("candidate_source_candidate_volume_by_source", {"requisition_id": "05958BR", "sources": [1, "Dice", 2.5, None]}),
        ("candidate_source_candidate_volume_by_source", {"requisition_id": "05958BR", "sources": {"Dice": 1}}),
        ("candidate_source_source_sla_score", {"requisition_id": "05958BR", "source_name": None}),
        ("skills_skill_lookup", {"requisition_id": "05958BR", "skill_name": None}),
        ("skills_skill_lookup", {"requisition_id": "05958BR", "skill_name": "Python", "include_history": True}),
        ("skills_successful_posting_criteria", {"a": 1}),
        ("skills_analyze_skill_match", {"requisition_id": "05958BR", "skill_name": "Python"}),
        ("candidate_source_requisition_details", {"requisition_id": "ünï\"\\\u0000\u001f\u007f\u2028😀"}),
        ("skills_skill_summary", {"requisition_id": "ünï\"\\\u0000\u001f\u007f\u2028😀"}),
        ("candidate_source_sla_per_source", {"requisition_id": "ünï\"\\\u0000\u001f\u007f\u2028😀"}),
        ("candidate_source_sla_per_source", {"requisition_id": "x" * 5000}),
    ]

    stateful = [("candidate_source_candidate_pipeline_status", {"requisition_id": ids[0]})] * 30
    stateful += [("candidate_source_bulk_source_data", {"requisition_id": "UNKNOWN"})] * 2
    stateful += [("candidate_source_bulk_source_data", {"requisition_id": ids[0]})] * 3
    stateful += [("candidate_source_candidate_pipeline_status", {"requisition_id": "NOPE"})] * 10

    return per_requisition + [invalid, bad, stateful]


async def run(calls):
    candidate_source_error._rng.seed(42)
    candidate_source_error._call_counts.clear()
    out = []
    async with Client(server.mcp) as client:
        for name, args in calls:
            result = await client.call_tool_mcp(name, args)
            texts = [c.text for c in result.content]
            out.append({
                "tool": name,
                "arguments": args,
                "texts": texts,
                "is_error": bool(result.isError),
                "structured_content": result.structuredContent,
            })
    return out


async def main(path, folder):
    if folder:
        use_jsonl(folder)
    recorded = {"sessions": [await run(calls) for calls in sessions(folder is None)]}
    async with Client(server.mcp) as client:
        tools = await client.list_tools()
        recorded["tools"] = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(recorded, f, ensure_ascii=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--data", help="a folder with candidate_data.jsonl to use instead")
    options = parser.parse_args()
    asyncio.run(main(options.output, options.data))
