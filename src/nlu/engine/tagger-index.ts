/**
 * The Viterbi tagger's weights indexed by syllable ids, for prediction: a
 * token's features are looked up by number instead of being built as
 * strings ("f-1f0=chuyen tien") and hashed, about twenty a token. The rows
 * are added in the order `emission` and `transitionKeys` (tagger.ts) list
 * their features, so the sums, and the tags, are the same to the bit.
 */

/** Feature templates keyed by one syllable (written `w`, folded `f`), by prefix. */
const EMISSION_ONE = ['w0', 'f0', 'f-1', 'f+1', 'f-2', 'f+2', 'w-1'] as const;
/** Templates keyed by two folded syllables ("a b"). */
const EMISSION_TWO = ['f-1f0', 'f0f+1', 'f-2f-1'] as const;
/** Transition keys keyed by one folded syllable. */
const TRANSITION_ONE = ['t-1f0', 't-1f-1'] as const;

type Rows = Map<string, Float64Array>;

/** One sentence as the index reads it: each position's syllable ids (-1: in no feature) and the rest as strings. */
export interface IndexedSentence {
  /** Folded ids of positions -2 .. n+1 (offset by 2): "<s>" before, "</s>" after. */
  folded: Int32Array;
  /** Written ids of positions -1 .. n-1 (offset by 1). */
  written: Int32Array;
  /** Shape of positions -1 .. n-1 (offset by 1), as `shapeOf` names it. */
  shapes: string[];
  hints: string[][];
}

export class TaggerIndex {
  private readonly syllables = new Map<string, number>();
  /** Rows of each template of EMISSION_ONE, EMISSION_TWO, TRANSITION_ONE (in their order), by syllable id or pair key. */
  private readonly oneRows = EMISSION_ONE.map(() => new Map<number, Float64Array>());
  private readonly twoRows = EMISSION_TWO.map(() => new Map<number, Float64Array>());
  private readonly pairOneRows = TRANSITION_ONE.map(() => new Map<number, Float64Array>());
  private readonly bias: Float64Array | undefined;
  private readonly previousTag: Float64Array | undefined;
  /** Rows of features with no syllable (bias, shape, hints), by their strings. */
  private readonly weights: Rows;
  private readonly pairs: Rows;
  /** The rows of the shape and hint features by shape or hint (`keyedRow`), so no key string is built per token. */
  private readonly shapeRows: KeyedRows = new Map();
  private readonly shapePairRows: KeyedRows = new Map();
  private readonly hintRows: KeyedRows = new Map();
  private readonly hintPairRows: KeyedRows = new Map();
  private readonly rowBuffer: Float64Array[] = [];

  constructor(weights: Rows, pairs: Rows) {
    this.weights = weights;
    this.pairs = pairs;
    this.bias = weights.get('bias');
    this.previousTag = pairs.get('t-1');
    const split = (key: string) => {
      const at = key.indexOf('=');
      return at < 0 ? undefined : { prefix: key.slice(0, at), value: key.slice(at + 1) };
    };
    const idOf = (syllable: string) => {
      let id = this.syllables.get(syllable);
      if (id === undefined) this.syllables.set(syllable, (id = this.syllables.size));
      return id;
    };
    // Syllables first, so the pair keys (a * count + b) are fixed before the rows are filed.
    const parts: { rows: Map<number, Float64Array>; syllables: string[]; row: Float64Array }[] = [];
    const file = (templates: readonly string[], target: Map<number, Float64Array>[], rows: Rows, arity: 1 | 2) => {
      for (const [key, row] of rows) {
        const p = split(key);
        const into = p && target[templates.indexOf(p.prefix)];
        if (!p || !into) continue;
        const syllables = arity === 1 ? [p.value] : p.value.split(' ');
        if (syllables.length !== arity) continue;
        syllables.forEach(idOf);
        parts.push({ rows: into, syllables, row });
      }
    };
    file(EMISSION_ONE, this.oneRows, weights, 1);
    file(EMISSION_TWO, this.twoRows, weights, 2);
    file(TRANSITION_ONE, this.pairOneRows, pairs, 1);
    const count = this.syllables.size;
    for (const { rows, syllables, row } of parts) {
      const [a, b] = syllables.map((s) => this.syllables.get(s)!);
      rows.set(syllables.length === 1 ? a! : a! * count + b!, row);
    }
  }

  /** A syllable's id, -1 when no feature holds it. */
  id(syllable: string): number {
    return this.syllables.get(syllable) ?? -1;
  }

  private pairKey(a: number, b: number): number {
    return a < 0 || b < 0 ? -1 : a * this.syllables.size + b;
  }

  /** Adds token i's emission rows into `base` and its transition rows into `trans`, in the string features' order. */
  add(s: IndexedSentence, i: number, base: Float64Array, trans: Float64Array): void {
    const folded = s.folded;
    const f0 = folded[i + 2]!;
    const fm1 = folded[i + 1]!;
    const fm2 = folded[i]!;
    const fp1 = folded[i + 3]!;
    const fp2 = folded[i + 4]!;
    const one = this.oneRows;
    const two = this.twoRows;
    // The rows present, in the order they are added; then summed a few at a time (`sumRows`, the same bits).
    const rows = this.rowBuffer;
    let n = 0;
    n = put(rows, n, this.bias);
    n = put(rows, n, rowOf(one[0]!, s.written[i + 1]!));
    n = put(rows, n, rowOf(one[1]!, f0));
    n = put(rows, n, rowOf(one[2]!, fm1));
    n = put(rows, n, rowOf(one[3]!, fp1));
    n = put(rows, n, rowOf(one[4]!, fm2));
    n = put(rows, n, rowOf(one[5]!, fp2));
    n = put(rows, n, rowOf(one[6]!, s.written[i]!));
    n = put(rows, n, rowOf(two[0]!, this.pairKey(fm1, f0)));
    n = put(rows, n, rowOf(two[1]!, this.pairKey(f0, fp1)));
    n = put(rows, n, rowOf(two[2]!, this.pairKey(fm2, fm1)));
    n = put(rows, n, keyedRow(this.shapeRows, this.weights, 'shape=', s.shapes[i + 1]!));
    const hints = s.hints[i] ?? [];
    for (const h of hints) n = put(rows, n, keyedRow(this.hintRows, this.weights, 'h=', h));
    sumRows(base, rows, n);
    n = 0;
    n = put(rows, n, keyedRow(this.shapePairRows, this.pairs, 'shape-1=', s.shapes[i]!));
    n = put(rows, n, this.previousTag);
    n = put(rows, n, rowOf(this.pairOneRows[0]!, f0));
    n = put(rows, n, rowOf(this.pairOneRows[1]!, fm1));
    for (const h of hints) n = put(rows, n, keyedRow(this.hintPairRows, this.pairs, 'h|t-1=', h));
    sumRows(trans, rows, n);
  }
}

/** Rows by the part of their feature after a fixed prefix; null: no such feature. */
type KeyedRows = Map<string, Float64Array | null>;

/** The row of feature `prefix + key`, remembered by `key` (shapes and hints are a small set; bounded all the same). */
function keyedRow(memo: KeyedRows, rows: Rows, prefix: string, key: string): Float64Array | undefined {
  let row = memo.get(key);
  if (row === undefined) {
    row = rows.get(prefix + key) ?? null;
    if (memo.size < 10_000) memo.set(key, row);
  }
  return row ?? undefined;
}

function rowOf(rows: Map<number, Float64Array>, key: number): Float64Array | undefined {
  return key < 0 ? undefined : rows.get(key);
}

/** into += row, over the row's length (emission rows: one a tag; transition rows: one a previous tag and tag). */
function emit(into: Float64Array, row: Float64Array | undefined): void {
  if (row) for (let x = 0; x < row.length; x++) into[x]! += row[x]!;
}

/** Adds a row to the first `n` of `rows` if there is one; answers the new count. */
function put(rows: Float64Array[], n: number, row: Float64Array | undefined): number {
  if (row) rows[n++] = row;
  return n;
}

/**
 * `emit` of the first `count` rows in order, four at a time where they have one length: each element's sum
 * takes them in the same order, ((into + a) + b) + ..., so the same bits, with a quarter of the loads and
 * stores of `into`.
 */
function sumRows(into: Float64Array, rows: Float64Array[], count: number): void {
  let r = 0;
  for (; r + 4 <= count; r += 4) {
    const a = rows[r]!;
    const b = rows[r + 1]!;
    const c = rows[r + 2]!;
    const d = rows[r + 3]!;
    const length = a.length;
    if (b.length !== length || c.length !== length || d.length !== length) {
      emit(into, a);
      emit(into, b);
      emit(into, c);
      emit(into, d);
      continue;
    }
    for (let x = 0; x < length; x++) into[x] = into[x]! + a[x]! + b[x]! + c[x]! + d[x]!;
  }
  for (; r < count; r++) emit(into, rows[r]);
}
