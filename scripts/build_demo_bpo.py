#!/usr/bin/env python3
"""Build the demo BPO data set: an invented recruiting data set in the shape the BPO tools
read, written for vakra-rs (nothing is taken from the reference's data).

Output (the demo data root is the repository root):

  bpo/candidate_data.jsonl         one JSON object per candidate, the 22 columns of the
                                   reference's parquet file
  bpo/large_response_fixture.json  100 synthetic candidate records for the large-response tool
  bpo/descriptions.json            the demo's own descriptions of the 32 tools and of the result
                                   models in their output schemas (the texts below; a data root
                                   built by `vakra import` gets the reference's instead)

Only the standard library is used, and only `random.Random.random()` draws, whose sequence
CPython guarantees for a given seed, so every run writes byte-identical files:

  python3 scripts/build_demo_bpo.py [--out DIR]

The set covers what the tools distinguish: groups of similar requisitions by template; a
template used by a single requisition and a blank template (both fall back to department and
seniority); a source that some groups never use (so `candidate_source_inactive_sources`
returns a list); a non-ASCII source name; requisitions without hires.

No two skills of a group of similar requisitions are listed equally often: the reference ranks
skills with pandas' `value_counts`, whose order for ties comes from numpy's unstable sort and so
depends on the machine. The first seed from BASE_SEED without such ties is used.
"""

import argparse
import ast
import collections
import datetime
import itertools
import json
import random
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
COLUMNS = [
    "requisition_id", "job_title", "department", "location", "seniority_level",
    "requisition_template_id", "target_hires", "candidate_id", "source_name", "applied_at",
    "reviewed_at", "interviewed_at", "offer_extended_at", "offer_accepted", "hire_date",
    "skills", "sla_met", "reviewed", "interviewed", "offer_extended", "hired", "skills_parsed",
]

# (template id, department, seniority, job title, number of requisitions, skill pool)
TEMPLATES = [
    ("TPL-FIN-JR", "Finance", "Junior", "Junior Accountant", 8,
     ["Excel", "Bookkeeping", "SAP", "Reconciliation", "IFRS", "Payroll"]),
    ("TPL-OPS-SR", "Operations", "Senior", "Senior Operations Planner", 7,
     ["Lean", "Six Sigma", "Forecasting", "SQL", "Vendor Management", "Excel"]),
    ("TPL-CS-JR", "Customer Success", "Junior", "Customer Success Associate", 8,
     ["Zendesk", "Onboarding", "CRM", "Communication", "Spanish", "Excel"]),
    ("TPL-MKT-LD", "Marketing", "Lead", "Marketing Lead", 6,
     ["SEO", "Copywriting", "Analytics", "Budgeting", "Brand Strategy", "CRM"]),
    ("TPL-LEGAL-SR", "Legal", "Senior", "Senior Counsel", 1,
     ["Contracts", "Compliance", "GDPR", "Negotiation"]),
    ("", "Operations", "Senior", "Operations Analyst", 1,
     ["SQL", "Forecasting", "Excel", "Tableau"]),
]
SOURCES = ["Job Board", "Career Site", "Referral", "Agency", "Campus", "Bolsa de Empleo (Perú)"]
# Relative weights per source; Campus never recruits senior or lead roles.
SOURCE_WEIGHTS = {"Job Board": 5, "Career Site": 4, "Referral": 2, "Agency": 2, "Campus": 3,
                  "Bolsa de Empleo (Perú)": 1}
LOCATIONS = ["Lisbon", "Remote", "Toronto", "Lima"]
START = datetime.datetime(2024, 1, 8, 9, 0, 0)
BASE_SEED = 20240108
DAYS = 520


# The demo's own tool descriptions, in the order the BPO server lists its tools (written for
# vakra-rs; a data root built by `vakra import` gets the reference's texts instead).
TOOL_DESCRIPTIONS = [
    ("candidate_source_sla_per_source",
     ("For the requisitions similar to the given one, the share of reviewed candidates from each"
      " source whose review met the SLA, as a whole percentage, lowest first.")),
    ("candidate_source_total_hires_by_source",
     ("How many candidates each source brought to a hire across requisitions similar to the "
      "given one, busiest source first, with the overall hire count.")),
    ("candidate_source_candidate_volume_by_source",
     ("Counts applicants per source for requisitions similar to the given one, with each "
      "source's share of the total. Pass `sources` to keep only the named sources (exact "
      "spelling).")),
    ("candidate_source_funnel_conversion_by_source",
     ("Per source, the percentage of applicants who got a first-round review, an interview and "
      "an offer, for requisitions similar to the given one.")),
    ("candidate_source_metadata_and_timeframe",
     ("Describes where a requisition's figures come from: the period covered, the date of the "
      "last refresh and how many similar requisitions went into them.")),
    ("candidate_source_definitions_and_methodology",
     ("Explains the metrics this server reports (SLA, time to fill, success rate), how they are "
      "calculated for the given requisition, and which metrics matter most.")),
    ("candidate_source_source_recommendation_summary",
     ("One row per source combining the share of similar requisitions it helped fill, its review"
      " rate, its offer acceptance rate and its hires; use it to compare sources at a glance.")),
    ("skills_skill_analysis",
     ("Lists the most frequent skills among candidates for requisitions similar to the given "
      "one, with how often each occurs and whether having it goes with better or worse SLA "
      "outcomes.")),
    ("skills_skill_impact_fill_rate",
     ("Compares requisitions whose candidates have the given skill with those whose candidates "
      "do not: fill rate, days to fill and number of candidates on each side.")),
    ("skills_skill_impact_sla",
     ("SLA achievement among reviewed candidates who list the given skill versus those who lack "
      "it, for requisitions similar to the given one, and the gap between them.")),
    ("skills_skill_relevance_justification",
     ("Decides whether the given skill is worth keeping on the requisition, and backs the "
      "decision with its SLA and fill-rate figures.")),
    ("skills_successful_posting_criteria",
     ("The thresholds a job posting has to meet to count as successful (time to fill, offer "
      "acceptance, SLA compliance, candidate quality). Takes no arguments.")),
    ("skills_data_sources_used",
     "Names the data sets and models behind a requisition's hiring recommendations."),
    ("skills_skill_summary",
     ("A short comma-separated list of the skills seen among candidates for requisitions similar"
      " to the given one.")),
    ("candidate_source_source_sla_score",
     ("A single number: the SLA percentage of one source (Dice unless `source_name` says "
      "otherwise) for requisitions similar to the given one.")),
    ("candidate_source_inactive_sources",
     ("Sources that exist in the data set but sent no candidates to requisitions similar to the "
      "given one.")),
    ("candidate_source_candidate_pipeline_status",
     ("How many candidates each source currently has in the pipeline for requisitions similar to"
      " the given one, with the total.")),
    ("candidate_source_source_sla_check",
     "Checks the SLA status of every source for a requisition in one call."),
    ("candidate_source_funnel_status",
     "The live status of the hiring funnel, stage by stage, for a requisition."),
    ("candidate_source_bulk_source_data",
     "Candidate, hire and review totals per source for a requisition, in one large pull."),
    ("skills_model_registry",
     "The machine-learning models registered for a requisition, with their quality figures."),
    ("skills_skill_lookup",
     ("Occurrence count and rate of one skill among the candidates of requisitions similar to "
      "the given one.")),
    ("candidate_source_source_metrics_lite",
     "A compact per-source view of candidate, hire and SLA counts for a requisition."),
    ("candidate_source_volume_report",
     "A report of candidates, hires and review rate per source for a requisition."),
    ("candidate_source_full_candidate_details",
     "Every candidate record behind a requisition's metrics, one entry per candidate."),
    ("candidate_source_source_directory",
     "The catalogue of known sources with their details."),
    ("skills_skill_deep_analysis",
     "A layered breakdown of the leading skills for a requisition."),
    ("candidate_source_sla_extended",
     ("The SLA percentage of one source (Dice by default) for a requisition, together with "
      "further analytical fields.")),
    ("skills_analyze_skill_match",
     ("Scores how well a skill suits a requisition from past hiring outcomes and says whether it"
      " is a good or weak match.")),
    ("candidate_source_requisition_details",
     "Department, seniority, candidate count and sources of one requisition."),
    ("candidate_source_list_all_sources",
     "Lists the sources known to the system, a page at a time."),
    ("candidate_source_batch_metrics",
     "Candidate, hire and review counts for every source of a requisition, in one batch."),
]
# Descriptions of the result models that appear in the tools' output schemas.
MODEL_DESCRIPTIONS = {
    "RequisitionNotFoundResponse":
        ("Returned instead of a result when the requisition ID is unknown; suggests close "
         "matches."),
    "SLAMetric": "One source's SLA percentage.",
    "SLAPerSourceResponse": "SLA percentages, one entry per source.",
    "HireMetric": "One source's hire count.",
    "TotalHiresBySourceResponse": "Hires per source and in total for a requisition.",
    "VolumeMetric": "One source's applicant count and share.",
    "CandidateVolumeResponse": "Applicant counts per source, the total and a one-line summary.",
    "FunnelMetric": "One source's review, interview and offer percentages.",
    "FunnelConversionResponse": "Funnel percentages per source for a requisition.",
    "MetadataResponse": "The period, refresh date and requisition count behind the metrics.",
    "DefinitionsResponse":
        "What each metric means, how it is computed, and which metrics weigh most.",
    "SourceSummaryMetric": "One source's combined fill, review, acceptance and hire figures.",
    "SourceRecommendationResponse":
        "Combined figures per source and how many requisitions were compared.",
    "SkillWithAnalysis": "A skill, how often it occurs and how it relates to SLA outcomes.",
    "SkillAnalysisResponse": "The leading skills of similar requisitions with their SLA relation.",
    "ImpactMetrics": "Fill rate, days to fill and pool size for one side of a comparison.",
    "SkillImpactFillRateResponse": "Fill-rate figures with the skill and without it.",
    "SkillImpactSLAResponse": "SLA achievement with the skill, without it, and the difference.",
    "SkillJustificationImpact": "Fill rate, days to fill and pool size used as evidence.",
    "SkillJustificationData": "The SLA and fill-rate evidence behind a relevance decision.",
    "SkillRelevanceResponse": "Relevance verdict for a skill plus the evidence for it.",
    "SuccessCriteria": "Thresholds a successful posting has to reach.",
    "SuccessfulPostingResponse": "The success thresholds and where they come from.",
    "DataSourcesResponse": "Data sets and models behind a requisition's recommendations.",
}

class Draw:
    """Helpers over `random()` only (its sequence is stable across CPython versions)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def unit(self):
        return self.rng.random()

    def below(self, n):
        return min(int(self.unit() * n), n - 1)

    def pick(self, items):
        return items[self.below(len(items))]

    def weighted(self, weights):
        total = sum(w for _, w in weights)
        x = self.unit() * total
        for item, w in weights:
            x -= w
            if x < 0:
                return item
        return weights[-1][0]

    def chance(self, p):
        return self.unit() < p


def stamp(t):
    return t.strftime("%Y-%m-%d %H:%M:%S") if t else None


def candidates(draw):
    rows = []
    number = 0
    for template, department, seniority, title, count, pool in TEMPLATES:
        for _ in range(count):
            number += 1
            req = f"DMO{number:04d}"
            location = draw.pick(LOCATIONS)
            sources = [(s, w) for s, w in SOURCE_WEIGHTS.items()
                       if not (s == "Campus" and seniority != "Junior")]
            opened = START + datetime.timedelta(days=draw.below(DAYS - 120))
            hires_left = 1 + draw.below(2) if not number % 9 == 0 else 0
            for c in range(6 + draw.below(14)):
                source = draw.weighted(sources)
                applied = opened + datetime.timedelta(minutes=draw.below(60 * 24 * 90))
                skills = []
                for _ in range(1 + draw.below(3)):
                    skill = draw.pick(pool)
                    if skill not in skills:
                        skills.append(skill)
                reviewed = draw.chance(0.75 if source != "Agency" else 0.5)
                reviewed_at = applied + datetime.timedelta(hours=6 + draw.below(120)) if reviewed else None
                sla_met = reviewed and (reviewed_at - applied) <= datetime.timedelta(hours=48) or (
                    not reviewed and draw.chance(0.1))
                interviewed = reviewed and draw.chance(0.4 if "Excel" in skills else 0.3)
                interviewed_at = reviewed_at + datetime.timedelta(days=2 + draw.below(10)) if interviewed else None
                offered = interviewed and draw.chance(0.35)
                offered_at = interviewed_at + datetime.timedelta(days=1 + draw.below(7)) if offered else None
                accepted = offered and draw.chance(0.7)
                hired = accepted and hires_left > 0
                if hired:
                    hires_left -= 1
                hire_date = offered_at + datetime.timedelta(days=7 + draw.below(30)) if hired else None
                rows.append({
                    "requisition_id": req,
                    "job_title": title,
                    "department": department,
                    "location": location,
                    "seniority_level": seniority,
                    "requisition_template_id": template,
                    "target_hires": 1 + (number % 2),
                    "candidate_id": f"{req}_C{c + 1:03d}",
                    "source_name": source,
                    "applied_at": stamp(applied),
                    "reviewed_at": stamp(reviewed_at),
                    "interviewed_at": stamp(interviewed_at),
                    "offer_extended_at": stamp(offered_at),
                    "offer_accepted": bool(accepted),
                    "hire_date": stamp(hire_date),
                    "skills": repr(skills),
                    "sla_met": bool(sla_met),
                    "reviewed": bool(reviewed),
                    "interviewed": bool(interviewed),
                    "offer_extended": bool(offered),
                    "hired": bool(hired),
                    "skills_parsed": None,
                })
    return rows


def fixture(draw):
    first = ["Ana", "Bo", "Chidi", "Dara", "Eun-ji", "Farah", "Goran", "Hana", "Ines", "Jonas"]
    last = ["Alves", "Berg", "Costa", "Diallo", "Evans", "Fujita", "García", "Horvat"]
    statuses = ["applied", "reviewed", "interviewing", "offered", "hired", "rejected"]
    education = ["High school", "Associate", "Bachelor's", "Master's", "PhD"]
    records = []
    for i in range(100):
        status = draw.pick(statuses)
        name = f"{draw.pick(first)} {draw.pick(last)}"
        template = draw.pick(TEMPLATES)
        records.append({
            "candidate_id": f"DEMO{i:05d}",
            "name": name,
            "email": f"candidate{i}@example.org",
            "source": draw.pick(SOURCES),
            "skills": sorted({draw.pick(template[5]) for _ in range(3)}),
            "applied_at": stamp(START + datetime.timedelta(minutes=draw.below(60 * 24 * DAYS))),
            "status": status,
            "department": template[1],
            "seniority_level": template[2],
            "sla_met": draw.chance(0.8),
            "reviewed": status != "applied",
            "interviewed": status in ("interviewing", "offered", "hired"),
            "offered": status in ("offered", "hired"),
            "hired": status == "hired",
            "years_experience": draw.below(21),
            "education": draw.pick(education),
            "location": draw.pick(LOCATIONS),
        })
    return records


def has_skill_count_ties(rows):
    """Whether some group of similar requisitions (as the BPO tools form them) lists two skills
    equally often."""
    by_template = collections.defaultdict(list)
    by_department = collections.defaultdict(list)
    requisitions = {}
    for row in rows:
        by_template[row["requisition_template_id"]].append(row)
        by_department[(row["department"], row["seniority_level"])].append(row)
        requisitions.setdefault(row["requisition_id"], row)
    for first in requisitions.values():
        group = by_template[first["requisition_template_id"]]
        if not first["requisition_template_id"].strip() or len({r["requisition_id"] for r in group}) < 2:
            group = by_department[(first["department"], first["seniority_level"])]
        counts = collections.Counter(s for r in group for s in ast.literal_eval(r["skills"]))
        if len(set(counts.values())) < len(counts):
            return True
    return False


def descriptions():
    """The descriptions file: `{"tools": [{"name", "description"}, …], "models": {name: text}}`."""
    names = [name for name, _ in TOOL_DESCRIPTIONS]
    if len(names) != 32 or len(set(names)) != len(names):
        raise SystemExit("TOOL_DESCRIPTIONS must describe the 32 BPO tools once each")
    return {
        "tools": [{"name": name, "description": text} for name, text in TOOL_DESCRIPTIONS],
        "models": MODEL_DESCRIPTIONS,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bpo",
                        help="output folder (default: bpo/ at the repository root)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in itertools.count(BASE_SEED):
        draw = Draw(seed)
        rows = candidates(draw)
        if not has_skill_count_ties(rows):
            break
    with open(args.out / "candidate_data.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps({k: row[k] for k in COLUMNS}, ensure_ascii=False) + "\n")
    with open(args.out / "large_response_fixture.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(fixture(draw), f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(args.out / "descriptions.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(descriptions(), f, ensure_ascii=False, indent=2)
        f.write("\n")
    requisitions = len({r["requisition_id"] for r in rows})
    print(f"{len(rows)} candidates over {requisitions} requisitions (seed {seed}) written to {args.out}")


if __name__ == "__main__":
    main()
