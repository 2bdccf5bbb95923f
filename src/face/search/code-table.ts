import { hammingKernel, hammingModule, type HammingKernel } from './hamming-kernel.js';
import { CODE_BITS, CODE_BYTES, signCode } from './sign-code.js';

const PAGE = 65_536;
/** Byte addresses in the table's memory: the query code, the distance histogram, then the codes; per-query scratch follows the codes. */
const QUERY_AT = 0;
const HIST_AT = 512;
const HIST_BINS = CODE_BITS + 1;
const CODES_AT = 16_384;
/** Scratch bytes per row: a u16 distance and a u32 candidate slot. */
const SCRATCH_BYTES = 6;

/**
 * Sign codes of one collection's faces (CODE_BYTES each, in the index's row
 * order) in a WebAssembly memory the Hamming kernel scans. At 1M faces a
 * query reads 128 MB instead of 2 GB of float32 rows (or 512 MB of int8).
 */
export class SignCodeTable {
  private capacity: number;
  private bytes: Uint8Array;
  count = 0;

  private constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly kernel: HammingKernel,
    capacity: number,
  ) {
    this.capacity = capacity;
    this.bytes = new Uint8Array(memory.buffer);
  }

  /** A table with room for `capacity` codes, or undefined where WebAssembly SIMD is missing. */
  static create(capacity: number): SignCodeTable | undefined {
    const module = hammingModule(CODE_BYTES);
    if (!module) return undefined;
    const cap = Math.max(1024, Math.ceil(capacity / 1024) * 1024);
    const memory = new WebAssembly.Memory({ initial: SignCodeTable.pagesFor(cap) });
    return new SignCodeTable(memory, hammingKernel(module, memory), cap);
  }

  private static pagesFor(capacity: number): number {
    return Math.ceil((CODES_AT + capacity * (CODE_BYTES + SCRATCH_BYTES)) / PAGE);
  }

  add(v: Float32Array): void {
    if (this.count === this.capacity) {
      // Codes stay where they are; only the scratch behind them moves, so growing copies nothing.
      const cap = this.capacity * 2;
      this.memory.grow(SignCodeTable.pagesFor(cap) - this.memory.buffer.byteLength / PAGE);
      this.capacity = cap;
      this.bytes = new Uint8Array(this.memory.buffer);
    }
    signCode(v, this.bytes, CODES_AT + this.count * CODE_BYTES);
    this.count++;
  }

  /** A copy of the codes (CODE_BYTES each, row order): what a snapshot stores so a restore skips the rotations. */
  exportCodes(): Uint8Array {
    return this.bytes.slice(CODES_AT, CODES_AT + this.count * CODE_BYTES);
  }

  /** Appends codes exported by `exportCodes` (same CODE_BYTES layout). */
  importCodes(codes: Uint8Array): void {
    const n = codes.length / CODE_BYTES;
    if (!Number.isInteger(n)) throw new Error(`codes are not a whole number of ${CODE_BYTES}-byte rows`);
    if (this.count + n > this.capacity) {
      const cap = Math.max(this.capacity * 2, Math.ceil((this.count + n) / 1024) * 1024);
      this.memory.grow(SignCodeTable.pagesFor(cap) - this.memory.buffer.byteLength / PAGE);
      this.capacity = cap;
      this.bytes = new Uint8Array(this.memory.buffer);
    }
    this.bytes.set(codes, CODES_AT + this.count * CODE_BYTES);
    this.count += n;
  }

  /**
   * Rows whose code is within `cut` bits of the query's, widened to the
   * `atLeast` nearest codes when fewer are that close (ties at the widened
   * cut all come along). The returned view is valid until the next call.
   */
  near(q: Float32Array, cut: number, atLeast: number): Uint32Array {
    const n = this.count;
    const distAt = CODES_AT + this.capacity * CODE_BYTES;
    const outAt = distAt + this.capacity * 2;
    signCode(q, this.bytes, QUERY_AT);
    const hist = new Uint32Array(this.memory.buffer, HIST_AT, HIST_BINS);
    hist.fill(0);
    this.kernel.hamming(QUERY_AT, CODES_AT, n, distAt, HIST_AT);
    let within = 0;
    let h = 0;
    for (; h < HIST_BINS; h++) {
      within += hist[h];
      if (h >= cut && within >= Math.min(atLeast, n)) break;
    }
    const found = this.kernel.gather(distAt, n, Math.min(h, HIST_BINS - 1), outAt);
    return new Uint32Array(this.memory.buffer, outAt, found);
  }
}
