#!/usr/bin/env python3
"""Build the demo BPO data set: an invented recruiting data set in the shape the BPO tools
read, written for vakra-rs (nothing is taken from the reference's data).

Output (the demo data root is the repository root):

  bpo/candidate_data.jsonl         one JSON object per candidate, the 22 columns of the
                                   reference's parquet file
  bpo/large_response_fixture.json  100 synthetic candidate records for the large-response tool

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
    requisitions = len({r["requisition_id"] for r in rows})
    print(f"{len(rows)} candidates over {requisitions} requisitions (seed {seed}) written to {args.out}")


if __name__ == "__main__":
    main()
