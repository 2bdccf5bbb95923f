/**
 * The full sample list of an application, serialised once (as the UTF-8 bytes sent, so a hit encodes
 * nothing) and reused until
 * this process changes that application's training data. Only safe where one
 * process owns the writes (the embedded SQLite store); on PostgreSQL several
 * processes may write, so the cache is not used there.
 */
export class SampleListCache {
  private readonly entries = new Map<string, Buffer>();
  /** Bumped on every change, so a list read before a change is never stored after it. */
  private readonly generations = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(app: string): Buffer | undefined {
    const hit = this.entries.get(app);
    if (hit !== undefined) {
      // Refresh recency: Map keeps insertion order, the oldest is evicted first.
      this.entries.delete(app);
      this.entries.set(app, hit);
    }
    return hit;
  }

  generation(app: string): number {
    return this.generations.get(app) ?? 0;
  }

  /** Stores a list read at `generation`, unless the application changed since. */
  set(app: string, json: Buffer, generation: number): void {
    if (generation !== this.generation(app)) return;
    this.drop(app);
    if (json.length > this.maxBytes) return;
    this.entries.set(app, json);
    this.bytes += json.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
    }
  }

  invalidate(app: string): void {
    this.generations.set(app, this.generation(app) + 1);
    this.drop(app);
  }

  private drop(app: string): void {
    const old = this.entries.get(app);
    if (old === undefined) return;
    this.entries.delete(app);
    this.bytes -= old.length;
  }
}
