/**
 * Short run labels for the report's chart legends: run labels often share a long prefix (the
 * experiment, the embedder family) and differ only near their end, so a legend that cuts each label
 * to a fixed width shows the same text for different runs. `shortLabels` drops the prefix every label
 * shares (cut back to a separator, so no word is split) and keeps all that differs; the page shows the
 * full label on hover. Presentation only: the data and the charts keep the full labels.
 */

/** What marks a dropped prefix in a short label. */
export const ELLIPSIS = '…';
/** A shared prefix shorter than this (in code points) is kept: `bm25/none`, `bm25/rr` stay as they are. */
export const MIN_DROPPED = 10;

/** Characters after which a label may be cut: anything but a letter or a digit. */
const isSeparator = (c: string): boolean => !/^[\p{L}\p{N}]$/u.test(c);

/**
 * The prefix the legend labels of `labels` leave out: the longest prefix all the distinct labels
 * share, cut back to just after a separator (a character that is not a letter or a digit) and short
 * enough that every label keeps at least one character; '' when that is under `MIN_DROPPED` code
 * points or there are fewer than two distinct labels.
 */
export function droppedPrefix(labels: readonly string[]): string {
  const distinct = [...new Set(labels)].map((l) => Array.from(l));
  if (distinct.length < 2) return '';
  const first = distinct[0]!;
  let common = Math.min(...distinct.map((l) => l.length)) - 1;
  for (const l of distinct) {
    let i = 0;
    while (i < common && l[i] === first[i]) i++;
    common = i;
  }
  let cut = common;
  while (cut > 0 && !isSeparator(first[cut - 1]!)) cut--;
  return cut < MIN_DROPPED ? '' : first.slice(0, cut).join('');
}

/**
 * The legend label of each of `labels`, in order: `…` and the rest of the label when the labels
 * share a prefix worth dropping (`droppedPrefix`), otherwise the label itself. Distinct labels give
 * distinct short labels (all lose the same prefix); equal labels give equal ones; a short label is
 * its label, or `…` followed by what is left of it after the prefix, so the label is the prefix and
 * that rest.
 */
export function shortLabels(labels: readonly string[]): string[] {
  const prefix = droppedPrefix(labels);
  return prefix === '' ? [...labels] : labels.map((l) => ELLIPSIS + l.slice(prefix.length));
}
