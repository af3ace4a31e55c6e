"""Records the reference evaluator's whole-pipeline exact-match verdicts (pairing, replay,
response collection, the exact-match rule), for crates/vakra-cli/tests/eval_agreement.rs.

The reference evaluator's own code drives everything (`evaluator.evaluate_capability`); only its
configuration is set from here: its MCP connection runs this project's server
(`vakra mcp --capability N --domain D --root ROOT`), its LLM judges point at a closed local port
(they fail at once and score 0; only exact match is recorded), and each run holds one sample.
Nothing of the reference checkout is modified or copied; only its verdicts are written.

Two sets:

  synthetic  the demo split (demo/tasks) over an indexed copy of the demo data root, with the
             ground truth as predictions and perturbations of it (written by this script to
             crates/vakra-cli/tests/fixtures/eval_agreement/<variant>/predictions, and
             <variant>/ground_truth where a variant changes the ground truth), verdicts with
             their explanations in .../eval_agreement/reference_verdicts.json;
  samples    the published sample traces (../shared/reference/sample_data) as ground truth, and
             their last turn as predictions, over a root imported from the reference
             (`vakra import --vakra-repo REF --out /tmp/refroot`); their explanations can quote
             the reference's data, so only scores and a SHA-256 of each explanation are kept
             (.../eval_agreement/sample_data_verdicts.json).

Run (a Python with the reference evaluator's imports; mcp below 2, as the reference uses):

    cargo build -p vakra-cli
    python3 -m venv /tmp/venv-agree
    /tmp/venv-agree/bin/pip install "mcp>=1,<2" langchain-openai pyyaml tqdm
    /tmp/venv-agree/bin/python scripts/record_eval_agreement.py synthetic \
        --reference /tmp/vakra-ref --vakra $CARGO_TARGET_DIR/debug/vakra
    /tmp/venv-agree/bin/python scripts/record_eval_agreement.py samples \
        --reference /tmp/vakra-ref --vakra $CARGO_TARGET_DIR/debug/vakra --root /tmp/refroot

Deliberate differences of `vakra eval` (docs/compatibility.md, "The evaluator") are kept out of
the comparison as follows:

- sessions: the reference replays a whole domain in one server session, predictions before
  ground truth; vakra-rs opens a fresh session per sample and side. Each reference run here
  holds one sample, and the reference's own `execute_tools_batch` is given a fresh session for
  each of its two batches (prediction, ground truth) -- the session scope is the only thing
  changed, the calls, coercion and response capture are the reference's;
- the cases where a documented deliberate difference decides the verdict (`deliberate` below:
  capability-1 legacy traces, which vakra-rs translates, and a capability-1 ground truth that
  already starts with `get_data`, to which the reference prepends a second one whose response
  is then expected, against a prediction that has no such response among its last 20) are
  recorded with `"compare": false` and the reason, and are not compared;
- inputs on which the reference evaluator stops with an exception are recorded as such
  (`"reference": "exception"`) and not compared.
"""
import argparse
import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "crates/vakra-cli/tests/fixtures/eval_agreement"
CAPABILITY_NAMES = {
    1: ("capability_1_bi_apis", "capability_bi_apis"),
    2: ("capability_2_dashboard_apis", "capability_dashboard_apis"),
    3: ("capability_3_multihop_reasoning", "capability_multihop_reasoning"),
    4: ("capability_4_multiturn", "capability_multiturn"),
}


# ---------------------------------------------------------------------------------------------
# Synthetic predictions
# ---------------------------------------------------------------------------------------------

def wrong_value(value):
    """A plausible wrong value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "_x"
    return "wrong"


def answer_text(answer):
    if isinstance(answer, list):
        return ", ".join(str(a[0] if isinstance(a, list) and a else a) for a in answer)
    return "" if answer is None else str(answer)


def is_get_data(call):
    return call.get("name") in ("get_data", "initialize_active_data")


def legacy_form(calls):
    """Capability 1's legacy form: `initialize_active_data`, tables named by labels."""
    out, labels = [], {}
    for index, call in enumerate(calls):
        label = f"L{index}"
        if call["name"] == "get_data":
            out.append({"name": "initialize_active_data", "arguments": {}, "label": label})
            labels["retrieved"] = label
            continue
        arguments = {}
        for key, value in call.get("arguments", {}).items():
            if key.startswith("data_label") and isinstance(value, str):
                source = labels.get(value.split("_")[0], labels.get("retrieved"))
                arguments[key.replace("data_label", "data_source")] = f"${source}.data_path$"
            else:
                arguments[key] = value
        out.append({"name": call["name"], "arguments": arguments, "label": label})
        labels[{"filter_data": "filtered", "aggregate_data": "aggregated"}.get(call["name"], "x")] = label
    return out


def variants(capability, domain, calls):
    """(variant, calls of the prediction's turn, answer override or None, ground-truth calls
    override or None) for one ground-truth scored turn."""
    calls = copy.deepcopy(calls)
    lead = 1 if capability == 1 and calls and is_get_data(calls[0]) else 0
    body = calls[lead:]
    yield "oracle", calls, None, None
    # The ground-truth record itself (all its turns, stored responses, answer list).
    yield "ground_truth_record", calls, None, None
    yield "wrong_answer", calls, "I could not find the answer.", None
    yield "no_calls", [], None, None
    yield "no_sequence", [], None, None
    if body:
        yield "dropped_call", calls[:-1], None, None
        with_args = [i for i, c in enumerate(calls) if c.get("arguments") and i >= lead]
        if with_args:
            wrong = copy.deepcopy(calls)
            arguments = wrong[with_args[-1]]["arguments"]
            key = sorted(arguments)[-1]
            arguments[key] = wrong_value(arguments[key])
            yield "wrong_argument", wrong, None, None
        yield "extra_call", calls + [copy.deepcopy(calls[-1])], None, None
        yield "unknown_tool", calls + [{"name": "no_such_tool", "arguments": {"x": 1}}], None, None
        # A retriever-like name (capability 4 reads retriever responses as document lists).
        unknown = {"name": "query_no_such_domain", "arguments": {"question": "x"}}
        yield "unknown_retriever", calls + [unknown], None, None
        if len(body) > 1:
            yield "reordered", calls[:lead] + body[::-1], None, None
        stringly = copy.deepcopy(calls)
        for call in stringly:
            call["arguments"] = json.dumps(call.get("arguments", {}))
        yield "string_arguments", stringly, None, None
        as_text = copy.deepcopy(calls)
        for call in as_text[lead:]:
            call["arguments"] = {k: v if isinstance(v, str) else json.dumps(v)
                                 for k, v in call.get("arguments", {}).items()}
        yield "values_as_strings", as_text, None, None
        extra_argument = copy.deepcopy(calls)
        extra_argument[-1].setdefault("arguments", {})["unexpected"] = 1
        yield "extra_argument", extra_argument, None, None
        null_arguments = copy.deepcopy(calls)
        for call in null_arguments[lead:]:
            call["arguments"] = None
        yield "null_arguments", null_arguments, None, None
        flood = [{"name": "no_such_tool", "arguments": {"n": i}} for i in range(20)]
        yield "flooded", calls + flood, None, None
        yield "flooded_but_one", calls + flood[1:], None, None
        nameless = {"arguments": copy.deepcopy(calls[-1].get("arguments", {}))}
        yield "nameless_call", calls + [nameless], None, None
        yield "nameless_call_in_ground_truth", calls, None, calls + [nameless]
        yield "nameless_call_in_both", calls + [nameless], None, calls + [nameless]
    if domain == "bpo":
        # The BPO server's simulated failures: a process-wide random.Random(42), drawn per call
        # of this tool (one session per side, so both sides draw the same sequence).
        status = {"name": "candidate_source_candidate_pipeline_status",
                  "arguments": {"requisition_id": "DMO0001"}}
        twice = calls + [copy.deepcopy(status), copy.deepcopy(status)]
        yield "bpo_pipeline_status", twice, None, twice
        yield "bpo_pipeline_status_once", calls + [copy.deepcopy(status)], None, twice
    if capability == 1 and lead:
        yield "without_get_data", body, None, None
        if calls[0]["name"] == "get_data":
            yield "legacy_form", legacy_form(calls), None, None
            # The benchmark's own ground-truth form: `initialize_active_data` first (which both
            # evaluators replace with get_data), then the calls.
            initialize = [{"name": "initialize_active_data", "arguments": {}}] + body
            yield "initialize_ground_truth", calls, None, initialize
            yield "initialize_ground_truth_without_get_data", body, None, initialize
            yield "initialize_ground_truth_no_calls", [], None, initialize
            yield "initialize_ground_truth_no_sequence", [], None, initialize


def build_synthetic(split, out):
    """Writes every variant's predictions (and ground truth where it differs) under `out`;
    returns [(variant, capability, domain, uuid)]."""
    for old in out.glob("*/predictions"):
        shutil.rmtree(old.parent)
    cases = []
    files = {}
    for capability, (folder, _) in CAPABILITY_NAMES.items():
        for gt_path in sorted((split / folder / "output").glob("*.json")):
            domain = gt_path.stem
            for record in json.loads(gt_path.read_text(encoding="utf-8")):
                last = record["output"][-1]
                gt_calls = last["sequence"].get("tool_call", [])
                for variant, calls, answer, gt_override in variants(capability, domain, gt_calls):
                    prediction = {
                        "uuid": record["uuid"], "domain": domain, "status": "success",
                        "error": "", "duration_s": 0.0,
                        "output": [{
                            "turn_id": last["turn_id"], "query": last["query"],
                            "answer": answer if answer is not None else answer_text(last["answer"]),
                            "sequence": {"tool_call": calls}}]}
                    if variant == "ground_truth_record":
                        prediction = copy.deepcopy(record)
                    elif variant.endswith("no_sequence"):
                        del prediction["output"][0]["sequence"]
                    files.setdefault((variant, "predictions", folder, domain), []).append(prediction)
                    if gt_override is not None:
                        gt = copy.deepcopy(record)
                        gt["output"][-1]["sequence"]["tool_call"] = gt_override
                        files.setdefault((variant, "ground_truth", folder, domain), []).append(gt)
                    cases.append((variant, capability, domain, record["uuid"]))
    for (variant, kind, folder, domain), records in files.items():
        sub = Path(folder) / "output" if kind == "ground_truth" else Path(folder)
        path = out / variant / kind / sub / f"{domain}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return cases


# ---------------------------------------------------------------------------------------------
# Driving the reference evaluator
# ---------------------------------------------------------------------------------------------

class Reference:
    """The reference evaluator's modules, configured to replay against `vakra mcp`."""

    def __init__(self, checkout, vakra, root):
        sys.path[:0] = [str(Path(checkout) / "evaluator"), str(checkout)]
        os.environ.setdefault("API_KEY", "unused")
        import evaluator  # noqa: E402
        from benchmark import mcp_client  # noqa: E402
        import judge  # noqa: E402

        self.evaluator, self.mcp_client, self.judge = evaluator, mcp_client, judge
        self.vakra, self.root = str(vakra), str(root)
        self.current = None
        # Configuration only: a fresh server session for each replay batch (one sample per
        # run, so per sample and side, as vakra-rs replays); the calls are the reference's.
        real_execute = evaluator.execute_tools_batch

        async def execute_in_fresh_session(_session, batch, schema_map):
            config, domain = self.current
            async with mcp_client.create_client_and_connect(config, domain) as fresh:
                return await real_execute(fresh, batch, schema_map)

        evaluator.execute_tools_batch = execute_in_fresh_session

    def registry(self):
        """The reference's capability policies with its judges' LLM on a closed local port."""
        judge, evaluator = self.judge, self.evaluator
        config = {"end_point": "http://127.0.0.1:9", "params": {"max_retries": 0, "timeout": 2}}
        policy = evaluator.CapabilityPolicy(
            correctness_judge=judge.CorrectnessJudge(config=config),
            groundedness_judge=judge.GroundednessJudge(config=config),
            exactmatch_judge=judge.ExactMatchJudge(config=config))
        return {name: policy for _, name in CAPABILITY_NAMES.values()}

    def verdict(self, capability, domain, gt_record, pred_record):
        """The reference's exact-match verdict of one sample: (turn_id, score, explanation),
        or the exception it stopped with."""
        _, name = CAPABILITY_NAMES[capability]
        config = self.mcp_client.MCPConnectionConfig(
            mode="stdio", command=self.vakra,
            args=["mcp", "--capability", str(capability), "--domain", domain, "--root", self.root])
        self.current = (config, domain)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            for kind, record in (("gt", gt_record), ("pred", pred_record)):
                (tmp / kind).mkdir()
                (tmp / kind / f"{domain}.json").write_text(json.dumps([record]), encoding="utf-8")
            try:
                results = self.evaluator.evaluate_capability(
                    capability_name=name, gt_dir=tmp / "gt", pred_dir=tmp / "pred",
                    out_path=tmp / "results.json", registry=self.registry(),
                    mcp_config=config, selected_domains={domain})
            except Exception as e:  # noqa: BLE001 -- the reference's crash is the outcome
                cause = e.__cause__ or e
                return {"reference": "exception", "error": type(cause).__name__}
        turn = results["domains"][domain]["dialogues"][0]["details"]["per_turn"][0]
        return {"turn_id": turn["turn_id"], "score": turn["metadata"]["exactmatch_score"],
                "explanation": turn["metadata"]["score_explanation"]["exactmatch"]}


def deliberate(capability, gt, pred):
    """The documented deliberate difference of `vakra eval` that decides this case, if any."""
    def calls(record):
        return record["output"][-1].get("sequence", {}).get("tool_call", [])

    def legacy(record):
        text = json.dumps(calls(record))
        return ".data_path$" in text

    def initializes(record):
        return any(isinstance(c, dict) and c.get("name") == "initialize_active_data"
                   for c in calls(record))

    # A ground truth's leading initialize_active_data is replaced by get_data in both.
    if capability == 1 and (legacy(gt) or legacy(pred) or initializes(pred)):
        return ("legacy traces are translated before replay; the reference replays "
                "`initialize_active_data` and `$label.data_path$` references verbatim")
    starts = [bool(calls(r)) and isinstance(calls(r)[0], dict)
              and calls(r)[0].get("name") == "get_data" for r in (gt, pred)]
    # The reference prepends get_data to both sides; the prediction's second get_data response
    # is at index 1 of its responses, outside the last 20 beyond 20 calls.
    if capability == 1 and starts[0] and (not starts[1] or len(calls(pred)) > 20):
        return ("capability 1: this ground truth already starts with get_data; the reference "
                "prepends another one (whose table gets the next handle, so its response is "
                "expected too) and the prediction has no such response among its last 20; "
                "vakra-rs does not prepend get_data to a trace starting with it")
    return None


def demo_root(vakra, into):
    """An indexed copy of the demo data root (as crates/vakra-cli/tests/common's demo_root)."""
    for folder in ("openapi", "databases", "capability1", "bpo"):
        (into / folder).symlink_to(REPO / folder)
    for folder in ("documents", "retrievers"):
        shutil.copytree(REPO / folder, into / folder)
    subprocess.run([str(vakra), "index", "--root", str(into)], check=True, capture_output=True)


def synthetic(args):
    out = FIXTURES
    cases = build_synthetic(REPO / "demo/tasks", out)
    with tempfile.TemporaryDirectory() as root:
        demo_root(args.vakra, Path(root))
        reference = Reference(args.reference, args.vakra, root)
        recorded = []
        for variant, capability, domain, uuid in cases:
            folder = CAPABILITY_NAMES[capability][0]
            gt_file = out / variant / "ground_truth" / folder / "output" / f"{domain}.json"
            if not gt_file.exists():
                gt_file = REPO / "demo/tasks" / folder / "output" / f"{domain}.json"
            gt = next(r for r in json.loads(gt_file.read_text()) if r["uuid"] == uuid)
            pred_file = out / variant / "predictions" / folder / f"{domain}.json"
            pred = next(r for r in json.loads(pred_file.read_text()) if r["uuid"] == uuid)
            entry = {"variant": variant, "capability": capability, "domain": domain, "uuid": uuid}
            entry.update(reference.verdict(capability, domain, gt, pred))
            reason = deliberate(capability, gt, pred)
            if reason:
                entry["compare"], entry["reason"] = False, reason
            elif entry.get("reference") == "exception":
                entry["compare"] = False
                entry["reason"] = "the reference evaluator stops with an exception"
            else:
                entry["compare"] = True
            recorded.append(entry)
            print(variant, capability, domain, uuid, entry.get("score", entry.get("reference")),
                  flush=True)
    path = out / "reference_verdicts.json"
    path.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(recorded)} verdicts to {path}")


def samples(args):
    shared = Path(args.sample_data)
    reference = Reference(args.reference, args.vakra, args.root)
    recorded = []
    for capability, (folder, _) in CAPABILITY_NAMES.items():
        path = shared / folder / "output.json"
        if not path.exists():
            continue
        for record in json.loads(path.read_text(encoding="utf-8")):
            domain = record["domain"]
            entry = {"capability": capability, "domain": domain, "uuid": record["uuid"]}
            # A submission holds one turn (the reference stops on more): the last one.
            prediction = copy.deepcopy(record)
            prediction["output"] = prediction["output"][-1:]
            verdict = reference.verdict(capability, domain, copy.deepcopy(record), prediction)
            if "explanation" in verdict:
                text = verdict.pop("explanation") or ""
                verdict["explanation_sha256"] = hashlib.sha256(text.encode()).hexdigest()
            entry.update(verdict)
            entry["compare"] = entry.get("reference") != "exception"
            recorded.append(entry)
            print(entry, flush=True)
    out = FIXTURES / "sample_data_verdicts.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(recorded)} verdicts to {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", choices=["synthetic", "samples"])
    parser.add_argument("--reference", required=True, help="a checkout of the reference repo")
    parser.add_argument("--vakra", required=True, help="the vakra binary")
    parser.add_argument("--root", help="samples: a data root imported from the reference")
    parser.add_argument("--sample-data", default=str(REPO.parent / "shared/reference/sample_data"))
    args = parser.parse_args()
    args.vakra = Path(args.vakra).resolve()
    if args.set == "synthetic":
        synthetic(args)
    else:
        if not args.root:
            parser.error("samples needs --root")
        samples(args)


if __name__ == "__main__":
    main()
