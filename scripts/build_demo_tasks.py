"""Writes the demo benchmark split, demo/tasks/capability_<n>_<name>/{input,output}/<domain>.json:
a few samples per capability over the demo domains, in the benchmark's formats, for `vakra eval`
(the oracle test scores the ground truth given as predictions).

Each sample's tool calls run through `vakra mcp` (the official Python MCP client) to record the
ground truth's tool responses (capability 4 keeps retrieved documents as its reference does) and
to read the answer from them. Capability 4 needs the demo indexes (`vakra index --root ROOT`).

    python scripts/build_demo_tasks.py target/release/vakra ROOT
"""
import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

OUT = Path(__file__).resolve().parent.parent / "demo" / "tasks"

CAPABILITIES = {
    1: "capability_1_bi_apis",
    2: "capability_2_dashboard_apis",
    3: "capability_3_multihop_reasoning",
    4: "capability_4_multiturn",
}


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def first_number(text):
    """The answer of a scalar tool response."""
    return [text.strip()]


def field(key):
    """The answer: one field of a JSON object or of the first row of a JSON list."""
    def read(text):
        value = json.loads(text)
        if isinstance(value, list):
            value = value[0] if value else {}
        return [str(value.get(key))]
    return read


# (capability, domain, uuid, additional_instructions, turns); a turn is (query, calls, answer_from)
# where answer_from reads the answer from the turn's last tool response.
TASKS = [
    (1, "library", "11b7a0c0ffee-000000000001", "", [(
        "What is the average price of the fantasy books?",
        [call("get_data", tool_universe_id="11b7a0c0ffee-000000000001"),
         call("filter_data", data_label="retrieved_book_1", key_name="genre", value="Fantasy",
              condition="equal_to"),
         call("aggregate_data", data_label="filtered_book_1", key_name="price",
              aggregation_operation="mean")],
        first_number)]),
    (1, "library", "11b7a0c0ffee-000000000002", "", [(
        "How many books are in the joined table of books and authors?",
        [call("get_data", tool_universe_id="11b7a0c0ffee-000000000002"),
         call("aggregate_data", data_label="retrieved_book_1", key_name="book_id",
              aggregation_operation="count")],
        first_number)]),
    # The legacy form: initialize_active_data, and tables named by "$<label>.data_path$".
    (1, "weather", "3ea7e0c0ffee-000000000001", "", [(
        "How many stations stand higher than 1000 metres?",
        [{"name": "initialize_active_data", "arguments": {}, "label": "starting_table_var"},
         {"name": "select_data_greater_than",
          "arguments": {"data_source": "$starting_table_var.data_path$", "key_name": "elevation_m",
                        "value": 1000},
          "label": "FILTERED_DF_0"},
         {"name": "compute_data_count",
          "arguments": {"data_source": "$FILTERED_DF_0.data_path$", "key_name": "station_id"},
          "label": "COUNT"}],
        first_number)]),
    (2, "library", "2d1b0c0ffee0-000000000001", "", [(
        "How many loans has the Glebe branch issued?",
        [call("get_branch_summary", branch_id=8)], None)]),
    (2, "library", "2d1b0c0ffee0-000000000002", "", [(
        "What is the total late fee charged to member 853?",
        [call("get_late_fees_by_member", member_id=853)], None)]),
    (2, "weather", "2d1b0c0ffee0-000000000003", "", [(
        "What is the average PM2.5 reading in Poland?",
        [call("get_average_pm25_by_country", country="Poland")], None)]),
    (3, "library", "3d1b0c0ffee0-000000000001", "", [(
        "Which branch has been open the longest, and how many loans has it issued?",
        [call("get_oldest_branch"), call("get_branch_summary", branch_id=8)], None)]),
    (3, "weather", "3d1b0c0ffee0-000000000002", "", [(
        "Which station is the highest, and how much rain fell at Bergen in January 2024?",
        [call("get_elevation_extremes"),
         call("get_total_precipitation", code="BGO01", start_date="2024-01-01",
              end_date="2024-01-31")], None)]),
    (3, "bpo", "3d1b0c0ffee0-000000000003", "", [(
        "Which sources meet their SLA for requisition DMO0001, and what do they cost?",
        [call("candidate_source_sla_per_source", requisition_id="DMO0001"),
         call("candidate_source_total_hires_by_source", requisition_id="DMO0001")], None)]),
    (4, "library", "4d1b0c0ffee0-000000000001",
     "Only use retrievers for library, which is/are about the demo library's branches and policies.", [
        ("Which branch has been open the longest?", [call("get_oldest_branch")], None),
        ("How many loans has it issued, and what is visible under glass in its entrance?",
         [call("get_branch_summary", branch_id=8),
          call("query_library",
               question="What is visible under glass in the entrance of the Glebe branch?")],
         None)]),
    (4, "weather", "4d1b0c0ffee0-000000000002", "", [
        ("How is PM2.5 measured at the stations?",
         [call("query_weather", question="How is PM2.5 measured?")], None)]),
]


async def run_calls(vakra, root, capability, domain, calls):
    params = StdioServerParameters(
        command=vakra,
        args=["mcp", "--capability", str(capability), "--domain", domain, "--root", root])
    responses = []
    labels = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for c in calls:
                name, arguments = c["name"], dict(c["arguments"])
                if name == "initialize_active_data":
                    name, arguments = "get_data", {"tool_universe_id": uuid_of[id(calls)]}
                for key in ("data_source", "data_source_1", "data_source_2"):
                    if key in arguments:
                        ref = arguments.pop(key)
                        label = ref.strip("$").removesuffix(".data_path")
                        arguments[key.replace("data_source", "data_label")] = labels[label]
                result = await session.call_tool(name, arguments)
                text = result.content[0].text if result.content else ""
                if result.isError:
                    raise SystemExit(f"{domain} {name}: {text}")
                if c.get("label") and text.startswith('{"handle": "'):
                    labels[c["label"]] = json.loads(text)["handle"]
                responses.append(text)
    return responses


uuid_of = {}


def stored(capability, call_, text):
    """What the ground truth keeps: capability 4 keeps retrieved documents as objects."""
    if capability == 4 and "query_" in call_["name"]:
        return [{"text": r["text"]} for r in json.loads(text)["results"]]
    return text


async def main(vakra, root):
    files = {}
    for capability, domain, uuid, instructions, turns in TASKS:
        output_turns = []
        for turn_id, (query, calls, answer_from) in enumerate(turns):
            uuid_of[id(calls)] = uuid
            responses = await run_calls(vakra, root, capability, domain, calls)
            last = responses[-1]
            answer = answer_from(last) if answer_from else [last.strip()[:200]]
            output_turns.append({
                "turn_id": turn_id,
                "query": query,
                "answer": answer,
                "sequence": {
                    "tool_call": calls,
                    "tool_response": [stored(capability, c, r) for c, r in zip(calls, responses)],
                },
            })
        name = CAPABILITIES[capability]
        gt = {"uuid": uuid, "domain": domain, "additional_instructions": instructions,
              "output": output_turns}
        agent_input = {
            "uuid": uuid, "domain": domain, "num_turns": len(turns),
            "dialogue": {"turns": [{"turn_id": i, "query": t[0]} for i, t in enumerate(turns)]},
            "additional_instructions": instructions,
        }
        files.setdefault((name, "output", domain), []).append(gt)
        files.setdefault((name, "input", domain), []).append(agent_input)
    for (name, kind, domain), records in files.items():
        path = OUT / name / kind / f"{domain}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print("wrote", path.relative_to(OUT.parent.parent))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
