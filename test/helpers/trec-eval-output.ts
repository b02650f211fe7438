/** trec_eval -q output → measure name → qid (or "all") → value (the committed reference files of the trec_eval tests). */
export function parseTrecEval(text: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [name, qid, value] = line.trim().split(/\s+/) as [string, string, string];
    if (!out.has(name)) out.set(name, new Map());
    out.get(name)!.set(qid, Number(value));
  }
  return out;
}
