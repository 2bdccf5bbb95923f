import { randomFillSync } from 'node:crypto';
import { V7Generator } from 'uuidv7';

/**
 * Random words for UUIDv7s, drawn from the system's CSPRNG 256 at a time: the uuidv7 package's default draws 8
 * per call, so about every third id paid a call into OpenSSL (1.7% of the server's CPU per created NLU sample
 * on PostgreSQL, of the 2.7% the ids cost; bench/nlu.bench.ts profile).
 */
class BufferedRandom {
  private readonly words = new Uint32Array(256);
  private next = this.words.length;

  nextUint32(): number {
    if (this.next === this.words.length) {
      randomFillSync(this.words);
      this.next = 0;
    }
    return this.words[this.next++]!;
  }
}

const generator = new V7Generator(new BufferedRandom());

/** A UUIDv7 (time-ordered, monotonic within this process), as the uuidv7 package makes it. */
export function uuidv7(): string {
  return generator.generate().toString();
}
