/**
 * A count with its noun in the right number, the one helper of every printed count: `plural(1,
 * 'query', 'queries')` → "1 query", `plural(2, 'pair')` → "2 pairs" (the plural is `one` + "s"
 * unless given).
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${noun(n, one, many)}`;
}

/** The noun alone, in the number `n` asks for: `noun(1, 'run')` → "run", `noun(3, 'run')` → "runs". */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}
