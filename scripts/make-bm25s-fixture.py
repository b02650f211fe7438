#!/usr/bin/env python3
"""Recomputes the "expected" block of a bm25s reference fixture (test/fixtures/bm25s/*.json) from its
own "docs", "queries" and "k", calling bm25s exactly as the official SkillRet script does
(skillret/eval.py eval_bm25; the calls are spelled out in each fixture's "provenance"). bm25s is NOT
part of this repository: pass the folder of a bm25s checkout (tag 0.3.3) holding the `bm25s` package.

    python3 scripts/make-bm25s-fixture.py --bm25s <bm25s checkout> test/fixtures/bm25s/tiny.json [--check]

--check compares with the stored block instead of writing (exit 1 on a difference in ids or scores;
the order among equal scores is numpy's and not compared).
"""
import argparse
import json
import sys


def expected(bm25s, docs, queries, k):
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([d["text"] for d in docs], stopwords="en", show_progress=False), show_progress=False)
    ids = [d["id"] for d in docs]
    out = {}
    for q in queries:
        tok = bm25s.tokenize(q["text"], stopwords="en", show_progress=False)
        if len(tok.vocab) == 0:
            tok = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
        found, scores = retriever.retrieve(tok, k=min(k, len(ids)), show_progress=False)
        out[q["id"]] = [[ids[int(d)], float(s)] for d, s in zip(found[0], scores[0]) if s > 0]
    return out


def canonical(block):
    """Per query: the set of (score, id) pairs (tie order is not reproducible)."""
    return {q: sorted((s, d) for d, s in rows) for q, rows in block.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bm25s", required=True, help="folder holding the bm25s package (a checkout of tag 0.3.3)")
    ap.add_argument("fixture")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, a.bm25s)
    import bm25s  # noqa: E402

    fx = json.load(open(a.fixture, encoding="utf-8"))
    got = expected(bm25s, fx["docs"], fx["queries"], fx["k"])
    if a.check:
        same = canonical(got) == canonical(fx["expected"])
        print(f"{a.fixture}: {'identical' if same else 'DIFFERS'} ({len(got)} queries)")
        sys.exit(0 if same else 1)
    fx["expected"] = got
    with open(a.fixture, "w", encoding="utf-8") as f:
        json.dump(fx, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{a.fixture}: written ({len(got)} queries)")


if __name__ == "__main__":
    main()
