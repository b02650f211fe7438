/**
 * Untrusted text made safe for terminals and reports: every C0 control character (U+0000–U+001F)
 * but the ones a format needs (newline and tab by default), DEL (U+007F) and every C1 control
 * character (U+0080–U+009F, among them the one-byte CSI U+009B), and the bidirectional embedding,
 * override and isolate controls (U+202A–U+202E, U+2066–U+2069: "Trojan Source", text that reads
 * differently from what it is) become the visible escape `\uXXXX`.
 * ESC (full reset, cursor moves, colours), BEL, backspace and carriage return can so never act on
 * the reader's terminal. Inside a JSON string the escape reads back as the same character, so JSON
 * output stays valid and means the same. The one rule for stdout, stderr, summary.md and `compare`.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function escapeControl(text: string, keep: string = '\n\t'): string {
  return text.replace(CONTROL, (c) => (keep.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * One line of a table cell: every control character escaped, newline and tab included, and the
 * Unicode line and paragraph separators (U+2028, U+2029) too, so untrusted text can neither act on
 * the terminal nor break a row.
 */
export function escapeInline(text: string): string {
  return escapeControl(text, '').replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** true when `text` holds a control character `escapeControl` would rewrite. */
export function hasControl(text: string, keep: string = '\n\t'): boolean {
  return escapeControl(text, keep) !== text;
}
