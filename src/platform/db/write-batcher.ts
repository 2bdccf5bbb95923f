/**
 * Group commit for small independent writes: the rows handed in during one turn of the event loop are written
 * by one statement (one transaction) at the end of that turn, and each caller's promise settles when that
 * write has committed, so an answer still means "stored". One statement at a time: rows handed in while one
 * runs are written together by the next (on PostgreSQL, concurrent statements of one application only queued
 * on its data-version row, each with its own round trip and commit). If the batch fails (one bad row fails the whole
 * statement), each row is written again on its own, so every caller gets its own outcome and no row is lost
 * or written by another's failure.
 *
 * Gathering (`gatherMs` > 0): callers answered by a statement usually send their next row soon (a client
 * with N requests in flight). Without waiting for them, the first of those rows go out in a statement of their
 * own and the rest wait for its commit: with 32 clients on PostgreSQL the statements alternated between a few
 * rows and the rest (mean 16 a statement), so each client waited about two commits. So a statement waits
 * until as many rows are in hand as the last one answered plus those that were waiting when it ended, or
 * `gatherMs`, whichever comes first; a caller that sends one row at a time is written at once (expected: one).
 * Worth it where the commit is slow next to the wait (PostgreSQL: a WAL flush and two process wake-ups).
 *
 * On SQLite a commit is a WAL write that blocks the event loop (better-sqlite3 is synchronous): one commit
 * for the rows of a turn instead of one each costs a third of the time per row (bench/nlu.bench.ts,
 * docs/nlu.md). On PostgreSQL it saves round trips and server work.
 */
export class WriteBatcher<T> {
  private pending: { row: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** A flush is due at the end of this turn. */
  private scheduled = false;
  /** A statement is being written: rows handed in meanwhile wait for it and go in the next one together. */
  private writing = false;
  /** Waiting for more rows (gathering), until this timer fires. */
  private gatherTimer: NodeJS.Timeout | undefined;
  /** Rows the last statement answered plus those waiting when it answered: expected before the next goes out (gathering). */
  private expected = 1;
  /** Rows handed in so far; and how many had been when the running statement's callers were answered. */
  private handedIn = 0;
  private handedInAtAnswer = 0;

  constructor(
    /** Writes every row in one statement. */
    private readonly writeMany: (rows: T[]) => Promise<unknown>,
    /** Writes one row (a batch of one, and the retry of a failed batch). */
    private readonly writeOne: (row: T) => Promise<unknown>,
    /** Rows per statement (SQLite limits bound parameters per statement). */
    private readonly maxRows = 200,
    /** Longest wait for more rows before a statement goes out (0: none, each statement at the end of its turn). */
    private readonly gatherMs = 0,
  ) {}

  write(row: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      this.handedIn++;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.pending.length === 0) return;
    if (this.gatherTimer !== undefined) {
      // Gathering: go as soon as the expected rows are in hand.
      if (this.pending.length < this.expected) return;
      clearTimeout(this.gatherTimer);
      this.gatherTimer = undefined;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    // After this turn's other requests have handed in their rows.
    setImmediate(() => this.endOfTurn());
  }

  private endOfTurn(): void {
    this.scheduled = false;
    if (this.writing || this.gatherTimer !== undefined) return;
    if (this.gatherMs > 0 && this.pending.length < this.expected) {
      this.gatherTimer = setTimeout(() => {
        this.gatherTimer = undefined;
        void this.flush();
      }, this.gatherMs);
      return;
    }
    void this.flush();
  }

  private async flush(): Promise<void> {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    const batch = this.pending;
    this.pending = [];
    const handedInBefore = this.handedIn;
    try {
      for (let i = 0; i < batch.length; i += this.maxRows) await this.writeChunk(batch.slice(i, i + this.maxRows));
    } finally {
      // The callers just answered and the rows that were waiting when they were (not those the answered callers
      // sent since): with clients that keep their requests in flight, that many rows are due, and going out with
      // fewer splits them into two statements again.
      this.expected = Math.min(this.maxRows, batch.length + (this.handedInAtAnswer - handedInBefore));
      this.writing = false;
      this.schedule();
    }
  }

  private async writeChunk(chunk: typeof this.pending): Promise<void> {
    if (chunk.length > 1) {
      try {
        await this.writeMany(chunk.map((c) => c.row));
        this.handedInAtAnswer = this.handedIn;
        for (const c of chunk) c.resolve();
        return;
      } catch {
        // One row's failure failed them all: each on its own below, so each gets its own answer.
      }
    }
    this.handedInAtAnswer = this.handedIn;
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
