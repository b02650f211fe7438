#!/usr/bin/env python3
"""Writes test/fixtures/rank-correlation/scipy.json: Spearman rho and Kendall tau-b as
scipy.stats.spearmanr and scipy.stats.kendalltau (variant "b", the default) compute them, for
src/stats/rank-correlation.ts (test/stats-rank-correlation.test.ts).

Cases: small samples with no ties, with ties on one side, on both sides and joint ties, with
reversed and constant samples (rho and tau undefined: null), values spread over many magnitudes,
random samples of 2 to 60 pairs drawn from few distinct values (many ties) or from floats, and the
two columns of the paper's Table 15 (src/paper/paper-results.json, table v1.0-mteb-vs-skillret).
Deterministic (fixed seed). Usage:

    python3 scripts/make-rank-correlation-fixture.py > test/fixtures/rank-correlation/scipy.json
"""
import json
import math
import os
import random
import warnings

import scipy
from scipy.stats import kendalltau, spearmanr

warnings.simplefilter("ignore")  # scipy warns on constant input (the value is then nan)

rng = random.Random(20260715)
cases = [
    ("no ties", [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]),
    ("reversed", [1, 2, 3, 4], [4, 3, 2, 1]),
    ("ties in x", [1, 1, 2, 3, 3, 3], [1, 2, 3, 4, 5, 6]),
    ("ties in y", [1, 2, 3, 4, 5, 6], [2, 2, 1, 5, 5, 5]),
    ("joint ties", [1, 1, 1, 2, 2, 3, 3], [1, 1, 2, 2, 2, 3, 1]),
    ("two pairs", [0.5, 0.25], [3, 7]),
    ("constant x", [2, 2, 2], [1, 2, 3]),
    ("constant y", [1, 2, 3], [5, 5, 5]),
    ("magnitudes", [1e-300, 1e300, -5e-7, 0.0, 12345.678, -1e10], [3, -2, 0.5, 1e-9, 8, 8]),
]
for i in range(40):
    n = rng.randrange(2, 61)
    if i % 2 == 0:
        k = rng.randrange(1, 6)
        x = [rng.randrange(k + 1) for _ in range(n)]
        y = [rng.randrange(k + 2) for _ in range(n)]
    else:
        x = [round(rng.uniform(-100, 100), 2) for _ in range(n)]
        y = [xx * 0.3 + round(rng.gauss(0, 30), 2) for xx in x]
    cases.append((f"random {i} (n={n})", x, y))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "src", "paper", "paper-results.json"), encoding="utf-8") as f:
    table = next(t for t in json.load(f)["tables"] if t["id"] == "v1.0-mteb-vs-skillret")
cases.append(
    (
        "paper Table 15 (v1.0-mteb-vs-skillret)",
        [r["values"]["MTEB Retrieval"] for r in table["rows"]],
        [r["values"]["SkillRet NDCG@10"] for r in table["rows"]],
    )
)


def num(v):
    v = float(v)
    return None if math.isnan(v) else v


out = {
    "generator": "scripts/make-rank-correlation-fixture.py",
    "scipy": scipy.__version__,
    "cases": [
        {"name": name, "x": x, "y": y, "spearman": num(spearmanr(x, y).statistic), "kendall_b": num(kendalltau(x, y).statistic)}
        for name, x, y in cases
    ],
}
print(json.dumps(out, indent=1))
