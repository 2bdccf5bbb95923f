/**
 * The full sample list of each application, serialised once (as the UTF-8 bytes sent, so a hit encodes
 * nothing) and kept with the training-data version it was read at (`nlu_data_versions`). A list is served
 * only to a request that has just read the same version from the store: every write, by any process,
 * bumps the version in its own transaction, so a changed list is never served. Least recently used lists
 * are dropped past `maxBytes`.
 */
export class SampleListCache {
  private readonly entries = new Map<string, { version: number; json: Buffer }>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** The application's list if it was read at `version`. */
  get(app: string, version: number): Buffer | undefined {
    const hit = this.entries.get(app);
    if (hit === undefined) return undefined;
    if (hit.version !== version) {
      // Written since: this list will never be served again.
      if (hit.version < version) this.drop(app);
      return undefined;
    }
    // Refresh recency: Map keeps insertion order, the oldest is evicted first.
    this.entries.delete(app);
    this.entries.set(app, hit);
    return hit.json;
  }

  /** Keeps a list read after its version was read (so it holds at least every write up to that version). */
  set(app: string, version: number, json: Buffer): void {
    const current = this.entries.get(app);
    // A slower reader of an older version does not replace a newer list.
    if (current !== undefined && current.version > version) return;
    this.drop(app);
    if (json.length > this.maxBytes) return;
    this.entries.set(app, { version, json });
    this.bytes += json.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.json.length;
    }
  }

  private drop(app: string): void {
    const old = this.entries.get(app);
    if (old === undefined) return;
    this.entries.delete(app);
    this.bytes -= old.json.length;
  }
}
