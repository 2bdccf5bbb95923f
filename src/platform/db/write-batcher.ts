/**
 * Group commit for small independent writes: the rows handed in during one turn of the event loop are written
 * by one statement (one transaction) at the end of that turn, and each caller's promise settles when that
 * write has committed, so an answer still means "stored". One statement at a time: rows handed in while one
 * runs are written together by the next (on PostgreSQL, concurrent statements of one application only queued
 * on its data-version row, each with its own round trip and commit). If the batch fails (one bad row fails the whole
 * statement), each row is written again on its own, so every caller gets its own outcome and no row is lost
 * or written by another's failure.
 *
 * On SQLite a commit is a WAL write that blocks the event loop (better-sqlite3 is synchronous): one commit
 * for the rows of a turn instead of one each costs a third of the time per row (bench/nlu.bench.ts,
 * docs/nlu.md). On PostgreSQL it saves round trips and server work.
 */
export class WriteBatcher<T> {
  private pending: { row: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;
  /** A batch is being written: rows handed in meanwhile wait for it and go in the next one together. */
  private writing = false;

  constructor(
    /** Writes every row in one statement. */
    private readonly writeMany: (rows: T[]) => Promise<unknown>,
    /** Writes one row (a batch of one, and the retry of a failed batch). */
    private readonly writeOne: (row: T) => Promise<unknown>,
    /** Rows per statement (SQLite limits bound parameters per statement). */
    private readonly maxRows = 200,
  ) {}

  write(row: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // After this turn's other requests have handed in their rows.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.writing = true;
    const batch = this.pending;
    this.pending = [];
    try {
      for (let i = 0; i < batch.length; i += this.maxRows) await this.writeChunk(batch.slice(i, i + this.maxRows));
    } finally {
      this.writing = false;
      if (this.pending.length > 0) this.schedule();
    }
  }

  private async writeChunk(chunk: typeof this.pending): Promise<void> {
    if (chunk.length > 1) {
      try {
        await this.writeMany(chunk.map((c) => c.row));
        for (const c of chunk) c.resolve();
        return;
      } catch {
        // One row's failure failed them all: each on its own below, so each gets its own answer.
      }
    }
    await Promise.all(
      chunk.map((c) =>
        this.writeOne(c.row).then(
          () => c.resolve(),
          (err: unknown) => c.reject(err),
        ),
      ),
    );
  }
}
