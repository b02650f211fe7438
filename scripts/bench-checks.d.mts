/** Types of scripts/bench-checks.mjs (for the tests, which are type-checked). */
export declare const MAX_SHOWN: number;
export interface Difference {
  where: string;
  ours: string;
  reference: string;
}
export interface CheckJson {
  name: string;
  reference: string;
  ok: boolean;
  compared: number;
  differing: number;
  differences: Difference[];
  notes: string[];
}
export declare class Check {
  constructor(name: string, reference: string);
  name: string;
  reference: string;
  compared: number;
  differing: number;
  differences: Difference[];
  notes: string[];
  same<T>(where: string, ours: T, ref: T, eq?: (a: T, b: T) => boolean): boolean;
  differ(where: string, ours: unknown, ref: unknown): void;
  note(s: string): void;
  readonly ok: boolean;
  line(): string;
  toJSON(): CheckJson;
  static from(o: CheckJson): Check;
}
export declare class ValuesDiffer extends Error {
  constructor(section: string, checks: Check[]);
  section: string;
  checks: Check[];
}
export declare function requireChecks(section: string, checks: Check[]): string;
export declare function checksMarkdown(checks: Check[]): string;
export declare function failedSectionMarkdown(title: string, checks: Check[]): string;
export interface SectionFailure {
  section: string;
  message: string;
  valuesDiffer: boolean;
}
export declare function runSections(
  plan: [string, () => unknown][],
  o: { want: (name: string) => boolean; sections: string[]; json: Record<string, unknown>; log: (s: string) => void },
): Promise<SectionFailure[]>;
export declare function exitCodeFor(failures: readonly unknown[]): number;

export interface ScoredDoc {
  docId: string;
  score: number;
}
export declare function plainReadTrecRun(text: string): Map<string, ScoredDoc[]>;
export declare function plainReadTrecQrels(text: string): Map<string, Map<string, number>>;
export declare function plainReadQrelsJsonl(text: string): Map<string, Map<string, number>>;
export declare function trecQrelsText(qrels: ReadonlyMap<string, ReadonlyMap<string, number>>): string;

export declare function cFixed(x: number, digits: number): string;
export declare function parseTrecEval(text: string): Map<string, Map<string, string>>;
export declare function printedPrecision(parsed: Map<string, Map<string, string>>): 'full' | '4 decimals';
export declare function agreesWithPrinted(ours: number, printed: string | undefined, precision: string): boolean;
export interface TrecEvalValues {
  precision: string;
  perQuery: Map<string, Record<string, string>>;
  means: Record<string, string>;
  qids: string[];
}
export declare function trecEvalValues(run: (args: string[]) => string, qrelsPath: string, runPath: string, ks: readonly number[]): TrecEvalValues;

export interface EvaluationValues<V> {
  perQuery: ReadonlyMap<string, Readonly<Record<string, V>>>;
  means: Readonly<Record<string, V>>;
}
export declare function compareEvaluations<R>(
  check: Check,
  ours: EvaluationValues<number>,
  ref: EvaluationValues<R>,
  keys: readonly string[],
  agree: (ours: number, ref: R, key: string) => boolean,
): void;
export declare function compareRounding(check: Check, metrics: Record<string, number>, means: Record<string, number>, keys: readonly string[]): void;
export declare function plainEvaluation(
  qrelsText: string,
  runText: string,
  ks: readonly number[],
): Promise<{ keys: string[]; perQuery: Map<string, Record<string, number>>; means: Record<string, number> }>;
export declare function defaultKeys(ks: readonly number[]): string[];
export declare function ourScore(
  node: string,
  cli: string,
  qrelsPath: string,
  runPath: string,
  ks: readonly number[],
  notes?: string[],
): Promise<{ metrics: Record<string, number>; means: Record<string, number>; perQuery: Map<string, Record<string, number>> }>;
export declare function scoreChecks(o: {
  node: string;
  cli: string;
  qrelsPath: string;
  runPath: string;
  ks?: readonly number[];
  trecEval?: string | null;
  label?: string;
  tamper?: boolean;
}): Promise<{ checks: Check[]; metrics: Record<string, number> }>;

export declare function stageFolders(dir: string): string[];
export declare function resultsFolderChecks(dir: string, qrelsJsonl: string, label?: string): Promise<Check[]>;
export declare const RESULT_FILES: readonly string[];
export declare function resultFileBytes(dir: string): Map<string, Buffer>;
export declare function compareResultFiles(check: Check, ours: ReadonlyMap<string, Buffer>, ref: ReadonlyMap<string, Buffer>, prefix?: string): void;

export interface Matrix {
  data: Float32Array;
  rows: number;
  dim: number;
}
export interface TopKLike {
  indices: ArrayLike<number>;
  scores: ArrayLike<number>;
}
export declare function plainTopK(docs: Matrix, ids: readonly string[], queries: Matrix, q: number, k: number): { indices: number[]; scores: number[] };
export declare function compareTopK(check: Check, where: string, ours: TopKLike, plain: TopKLike): void;
export declare function compareVectors(check: Check, ours: readonly Float32Array[], ref: readonly Float32Array[], label?: string): void;
export declare function exactSampleCheck(o: {
  docs: Matrix;
  ids: readonly string[];
  queries: Matrix;
  exact: readonly TopKLike[];
  k: number;
  count?: number;
  label?: string;
}): Check;
