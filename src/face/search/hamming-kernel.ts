/**
 * A tiny WebAssembly (SIMD) kernel for the first stage of face search: the
 * Hamming distance from one query sign code to every stored code, plus a
 * histogram of those distances, and a pass that gathers the rows at or under
 * a cut. JavaScript has no 64-bit popcount; WASM SIMD has i8x16.popcnt, which
 * V8 compiles to a few SSE/NEON instructions, so the scan runs at about the
 * speed memory delivers the codes. The module is encoded here byte by byte
 * (a few hundred bytes), so there is no build step and nothing to download.
 *
 * Memory layout is the caller's: every function takes byte addresses into the
 * one imported memory.
 */

// Instruction bytes used below (WebAssembly core + SIMD proposal, now standard).
const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i32Load16U: 0x2f,
  i32Store: 0x36,
  i32Store16: 0x3b,
  i32Const: 0x41,
  i32LeU: 0x4d,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32Shl: 0x74,
} as const;
/** SIMD instructions: prefix 0xfd then the LEB128 opcode. */
const simd = {
  load: [0xfd, 0x00],
  i32x4ExtractLane: [0xfd, 0x1b],
  xor: [0xfd, 0x51],
  i8x16Popcnt: [0xfd, 0x62],
  i8x16Add: [0xfd, 0x6e],
  i16x8ExtaddPairwiseI8x16U: [0xfd, 0x7d],
  i32x4ExtaddPairwiseI16x8U: [0xfd, 0x7f],
} as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'latin1')];
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function fn(locals: [count: number, type: number][], body: number[]): number[] {
  const code = [...vec(locals.map(([n, t]) => [...uleb(n), t])), ...body, op.end];
  return [...uleb(code.length), ...code];
}

const get = (i: number) => [op.localGet, i];
const set = (i: number) => [op.localSet, i];
/** local += by */
const increment = (local: number, by: number) => [...get(local), ...i32(by), op.i32Add, ...set(local)];
const tee = (i: number) => [op.localTee, i];
const i32 = (n: number) => [op.i32Const, ...sleb(n)];
/** memarg: log2 alignment, byte offset. */
const mem = (align: number, offset: number) => [align, ...uleb(offset)];

/**
 * hamming(query, codes, n, dist, hist): for each of n codes at `codes`
 * (`bytes` each), dist[i] (u16) = popcount(code_i XOR query) and
 * hist[dist[i]] (u32) += 1. `hist` must hold 8 * bytes + 1 zeroed counters.
 * The query's 16-byte blocks live in locals (one v128 each).
 */
function hammingBody(bytes: number): number[] {
  const blocks = bytes / 16;
  const [query, codes, n, dist, hist] = [0, 1, 2, 3, 4];
  const [end, d, h, s] = [5, 6, 7, 8];
  const q = (k: number) => 9 + k;
  const popBlock = (k: number) => [...get(codes), ...simd.load, ...mem(0, k * 16), ...get(q(k)), ...simd.xor, ...simd.i8x16Popcnt];
  return [
    ...Array.from({ length: blocks }, (_, k) => [...get(query), ...simd.load, ...mem(0, k * 16), ...set(q(k))]).flat(),
    ...get(codes),
    ...get(n),
    ...i32(bytes),
    op.i32Mul,
    op.i32Add,
    ...set(end),
    op.block,
    op.void,
    op.loop,
    op.void,
    ...get(codes),
    ...get(end),
    op.i32GeU,
    op.brIf,
    1,
    // The blocks' popcounts summed per byte lane (at most 8 per block), then widened and summed across lanes.
    ...popBlock(0),
    ...Array.from({ length: blocks - 1 }, (_, k) => [...popBlock(k + 1), ...simd.i8x16Add]).flat(),
    ...simd.i16x8ExtaddPairwiseI8x16U,
    ...simd.i32x4ExtaddPairwiseI16x8U,
    ...tee(s),
    ...simd.i32x4ExtractLane,
    0,
    ...get(s),
    ...simd.i32x4ExtractLane,
    1,
    op.i32Add,
    ...get(s),
    ...simd.i32x4ExtractLane,
    2,
    op.i32Add,
    ...get(s),
    ...simd.i32x4ExtractLane,
    3,
    op.i32Add,
    ...set(d),
    ...get(dist),
    ...get(d),
    op.i32Store16,
    ...mem(0, 0),
    ...get(hist),
    ...get(d),
    ...i32(2),
    op.i32Shl,
    op.i32Add,
    ...tee(h),
    ...get(h),
    op.i32Load,
    ...mem(2, 0),
    ...i32(1),
    op.i32Add,
    op.i32Store,
    ...mem(2, 0),
    ...increment(codes, bytes),
    ...increment(dist, 2),
    op.br,
    0,
    op.end,
    op.end,
  ];
}

/** gather(dist, n, cut, out) -> count: writes (u32) every i < n with dist[i] <= cut to `out`, in order. */
function gatherBody(): number[] {
  const [dist, n, cut, out] = [0, 1, 2, 3];
  const [i, count] = [4, 5];
  return [
    op.block,
    op.void,
    op.loop,
    op.void,
    ...get(i),
    ...get(n),
    op.i32GeU,
    op.brIf,
    1,
    ...get(dist),
    op.i32Load16U,
    ...mem(0, 0),
    ...get(cut),
    op.i32LeU,
    op.if,
    op.void,
    ...get(out),
    ...get(i),
    op.i32Store,
    ...mem(2, 0),
    ...increment(out, 4),
    ...increment(count, 1),
    op.end,
    ...increment(i, 1),
    ...increment(dist, 2),
    op.br,
    0,
    op.end,
    op.end,
    ...get(count),
  ];
}

function moduleBytes(bytes: number): Uint8Array<ArrayBuffer> {
  const types = vec([
    [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), ...vec([])],
    [0x60, ...vec([[I32], [I32], [I32], [I32]]), ...vec([[I32]])],
  ]);
  const imports = vec([[...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]]);
  const funcs = vec([[0], [1]]);
  const exports = vec([
    [...name('hamming'), 0x00, 0],
    [...name('gather'), 0x00, 1],
  ]);
  const codes = vec([
    fn(
      [
        [3, I32],
        [1 + bytes / 16, V128],
      ],
      hammingBody(bytes),
    ),
    fn([[2, I32]], gatherBody()),
  ]);
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, types),
    ...section(2, imports),
    ...section(3, funcs),
    ...section(7, exports),
    ...section(10, codes),
  ]);
}

export interface HammingKernel {
  hamming(query: number, codes: number, n: number, dist: number, hist: number): void;
  gather(dist: number, n: number, cut: number, out: number): number;
}

const compiled = new Map<number, WebAssembly.Module | null>();

/**
 * The module for codes of `bytes` bytes (a multiple of 16, at most 496 so a
 * byte lane cannot overflow), or null where this runtime has no WebAssembly SIMD.
 */
export function hammingModule(bytes: number): WebAssembly.Module | null {
  if (bytes % 16 !== 0 || bytes < 16 || bytes > 496) throw new Error(`code size ${bytes} is not a multiple of 16 from 16 to 496`);
  let module = compiled.get(bytes);
  if (module === undefined) {
    try {
      module = new WebAssembly.Module(moduleBytes(bytes));
    } catch {
      module = null;
    }
    compiled.set(bytes, module);
  }
  return module;
}

/** An instance of the kernel over `memory`. */
export function hammingKernel(module: WebAssembly.Module, memory: WebAssembly.Memory): HammingKernel {
  return new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as HammingKernel;
}
