#!/usr/bin/env python3
"""Writes test/fixtures/rounding/official-percent.json: means and how the official SkillRet code
prints them, f"{round(mean, 5) * 100:.2f}" (and the naive f"{mean * 100:.2f}" for contrast).

Means are what an evaluation produces: sums of per-query values over a query count (k/n for the
v1.0/v1.1 denominators and small samples, NDCG-like sums of 1/log2(i+1) terms), plus values at and
around the 5-decimal and the 2-decimal ties. Deterministic (fixed seed). Usage:

    python3 scripts/make-rounding-fixture.py > test/fixtures/rounding/official-percent.json
"""
import json
import math
import random

rng = random.Random(20260507)
means = set()
for n in (30, 287, 4392, 4997, 2319, 7):
    for _ in range(400):
        means.add(rng.randrange(0, n + 1) / n)
for _ in range(800):
    n = rng.choice((30, 4392, 4997))
    s = sum(1 / math.log2(rng.randrange(1, 16) + 1) for _ in range(rng.randrange(1, n)))
    means.add(min(1.0, s / n))
for _ in range(600):
    # near a 5-decimal tie (x.xxxxx5) and near a 2-decimal percent tie (0.xxxx5)
    base = rng.randrange(0, 100000)
    for d in (5e-6, 5e-5):
        means.add(base * 1e-5 + d)
        means.add(base * 1e-5 + d + rng.choice((-1, 1)) * 1e-12)
means.update((0.0, 1.0, 0.46474, 0.48864, 0.15129, 0.08639, 0.004995, 0.00125, 0.99995, 0.285))
print('{"generator": "scripts/make-rounding-fixture.py", "columns": ["mean (repr)", "official", "naive"], "rows": [')
rows = [json.dumps([repr(m), f"{round(m, 5) * 100:.2f}", f"{m * 100:.2f}"]) for m in sorted(means)]
print(",\n".join(rows))
print("]}")
