/**
 * Preloaded into a bench's server process (`node --expose-gc --import this-file ...`), never into production:
 * on SIGUSR2 it runs a full garbage collection and appends the process's memory use after it, one JSON line,
 * to the file named by SAOLA_HEAP_PROBE_FILE. The soak uses it to tell a leak (live objects that survive a full
 * collection and keep growing) from a heap that has simply not been collected yet, which RSS alone cannot.
 * Only the main thread's heap is collected and measured; the engines' worker threads show in RSS. When the
 * file `<SAOLA_HEAP_PROBE_FILE>.snapshot` exists, the next probe also writes a heap snapshot to the path it holds.
 */
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.SAOLA_HEAP_PROBE_FILE;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    const t0 = performance.now();
    globalThis.gc();
    const gcMs = performance.now() - t0;
    const m = process.memoryUsage();
    // A heap snapshot too when asked: the file `<probe file>.snapshot` names where to write it.
    const ask = `${file}.snapshot`;
    if (fs.existsSync(ask)) {
      const target = fs.readFileSync(ask, 'utf8').trim();
      fs.rmSync(ask);
      v8.writeHeapSnapshot(target);
    }
    fs.appendFileSync(
      file,
      `${JSON.stringify({ at: Date.now(), gcMs, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers })}\n`,
    );
  });
}
