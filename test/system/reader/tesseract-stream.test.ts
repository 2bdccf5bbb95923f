/**
 * The long-lived Tesseract processes (src/reader/pipeline/tesseract-stream.ts)
 * against the real Debian program: same words as one process per call, each
 * caller gets its own page, and a process that dies or hangs is replaced.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { grayPgm, NativeTesseract, parseTsv } from '../../../src/reader/pipeline/ocr.js';
import { spawnSync, spawn } from 'node:child_process';
import path from 'node:path';
import { processScratchRoot, removeThreadScratch, sweepStaleScratch, TesseractStreams } from '../../../src/reader/pipeline/tesseract-stream.js';
import type { ReaderResult, ReaderTask } from '../../../src/reader/tasks.js';
import { WorkerPool } from '../../../src/platform/pool/index.js';
import { needsPrograms } from '../../support/programs.js';
import { sleep } from '../../support/wait.js';

async function textImage(text: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="520" height="70"><rect width="100%" height="100%" fill="#fff"/><text x="12" y="48" font-family="DejaVu Sans" font-size="34">${text}</text></svg>`;
  return sharp(Buffer.from(svg)).greyscale().png().toBuffer();
}

const words = (ws: { text: string }[]) => ws.map((w) => w.text).join(' ');
/** Tesseract processes whose parent is this process (stdbuf runs tesseract in its own place). */
function tesseractChildren(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return stat.includes('(tesseract)') && Number(fields[1]) === process.pid && fields[0] !== 'Z' ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

/** Running (a zombie not yet reaped by its parent counts as ended). */
const alive = (pid: number) => {
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// Without the program the reader runs tesseract.js, which test/api/reader/fallback.test.ts covers.
describe('long-lived tesseract', { skip: needsPrograms('tesseract') }, () => {
  const engine = new NativeTesseract({ streaming: true });
  after(() => engine.close());

  it('reads what one process per call reads', async () => {
    const once = new NativeTesseract({ streaming: false });
    for (const text of ['Xin chào Việt Nam 2025', 'NGUYỄN VĂN AN 0123']) {
      const png = await textImage(text);
      const streamed = await engine.recognize(png, { lang: 'vie', psm: 6 });
      assert.equal(words(streamed), text);
      assert.deepEqual(streamed, await once.recognize(png, { lang: 'vie', psm: 6 }));
    }
    assert.equal(engine.pids().length, 1, 'one process per OCR setting, kept between calls');
  });

  it('reads a PGM of the same pixels as its PNG the same way, streamed and one process per call', async () => {
    const once = new NativeTesseract({ streaming: false });
    const png = await textImage('Nơi thường trú 17/05/2031');
    const { data, info } = await sharp(png).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const pgm = grayPgm(data, info.width, info.height);
    const fromPng = await engine.recognize(png, { lang: 'vie', psm: 6 });
    assert.equal(words(fromPng), 'Nơi thường trú 17/05/2031');
    assert.deepEqual(await engine.recognize(pgm, { lang: 'vie', psm: 6 }), fromPng);
    assert.deepEqual(await once.recognize(pgm, { lang: 'vie', psm: 6 }), fromPng);
  });

  it('gives each of many concurrent callers its own page, one process per setting', async () => {
    const numbers = Array.from({ length: 8 }, (_, i) => String(4170 + i * 1111));
    const images = await Promise.all(numbers.map((n) => textImage(`Số ${n}`)));
    const results = await Promise.all(images.map((png, i) => engine.recognize(png, { lang: 'vie', psm: i % 2 ? 6 : 11 })));
    assert.deepEqual(
      results.map(words),
      numbers.map((n) => `Số ${n}`),
    );
    assert.equal(engine.pids().length, 2);
  });

  it('fails a call whose image Tesseract cannot read, then starts again', async () => {
    await engine.recognize(await textImage('trước'), { lang: 'vie', psm: 6 });
    const [pid] = engine.pids();
    await assert.rejects(engine.recognize(Buffer.from('not an image at all'), { lang: 'vie', psm: 6 }), /tesseract exited/);
    assert.equal(words(await engine.recognize(await textImage('sau đó'), { lang: 'vie', psm: 6 })), 'sau đó');
    assert.notEqual(engine.pids()[0], pid, 'a new process took over');
  });

  it('recovers from a process killed between calls', async () => {
    const psm6 = { lang: 'vie' as const, psm: 6 };
    await engine.recognize(await textImage('một'), psm6);
    const before = new Set(engine.pids());
    for (const pid of before) process.kill(pid, 'SIGKILL');
    await sleep(100);
    assert.equal(words(await engine.recognize(await textImage('hai ba'), psm6)), 'hai ba');
  });

  it('kills a process that runs past the timeout and fails its call', async () => {
    const streams = new TesseractStreams(1);
    await assert.rejects(streams.recognize(await textImage('chậm'), { lang: 'vie', psm: 6 }), /longer than 1 ms/);
    const pids = streams.pids();
    await sleep(200);
    for (const pid of pids) assert.equal(alive(pid), false);
    streams.close();
  });

  it("ends with the reader worker thread that started it, also when the pool terminates the thread; the thread's images go with it", async () => {
    const pool = new WorkerPool<ReaderTask, ReaderResult>({
      filename: new URL('../../../src/reader/worker.js', import.meta.url),
      name: 'reader-test',
      threads: 1,
      maxQueue: 4,
      timeoutMs: 60_000,
      onThreadEnd: removeThreadScratch,
    });
    const before = new Set(tesseractChildren());
    const threadDirs = () => (fs.existsSync(processScratchRoot()) ? fs.readdirSync(processScratchRoot()).filter((d) => d !== 't0') : []);
    const dirsBefore = new Set(threadDirs());
    const image = new Uint8Array(fs.readFileSync(new URL('../../fixtures/reader/chip-front.jpg', import.meta.url)));
    const answer = await pool.run({ document: 'idcard', image, face: false, maxPixels: 4e7, minCardArea: 0.12, engine: 'native' });
    assert.equal(answer.document, 'idcard');
    assert.equal(answer.result.ok, true);
    const started = tesseractChildren().filter((pid) => !before.has(pid));
    assert.ok(started.length >= 1, 'the worker keeps its Tesseract processes between tasks');
    const workerDirs = threadDirs().filter((d) => !dirsBefore.has(d));
    assert.equal(workerDirs.length, 1, 'the worker thread writes its images under its own folder');
    // Between tasks the idle thread runs nothing (piscina waits on Atomics): each image must be gone already.
    await sleep(300);
    const left = fs.readdirSync(path.join(processScratchRoot(), workerDirs[0]), { recursive: true }).map(String);
    assert.deepEqual(
      left.filter((f) => /\.(png|pgm)$/.test(f) && !f.endsWith('sentinel.png')),
      [],
    );
    await pool.close();
    // Their stdin closes with the thread; Tesseract then finishes its list and exits.
    for (let i = 0; i < 50 && started.some(alive); i++) await sleep(100);
    assert.deepEqual(started.filter(alive), []);
    assert.equal(fs.existsSync(path.join(processScratchRoot(), workerDirs[0])), false, "the terminated thread's folder is removed");
  });

  it('close ends the processes and removes the scratch folder at once', async () => {
    const own = new TesseractStreams(20_000);
    const tsv = await own.recognize(await textImage('đóng'), { lang: 'vie', psm: 6 });
    assert.equal(words(parseTsv(tsv)), 'đóng');
    const pids = own.pids();
    const dir = own.scratchDir();
    assert.ok(dir && dir.startsWith(processScratchRoot() + path.sep) && fs.existsSync(path.join(dir, 'sentinel.png')));
    own.close();
    assert.equal(fs.existsSync(dir), false);
    await sleep(200);
    for (const pid of pids) assert.equal(alive(pid), false);
    await assert.rejects(own.recognize(await textImage('x'), { lang: 'vie', psm: 6 }));
  });

  it("removes the folders that killed processes left, and no live process's folder", async () => {
    const gone = spawnSync('true').pid as number;
    const sleeper = spawn('sleep', ['30']);
    try {
      const root = processScratchRoot();
      const deadRoot = path.join(path.dirname(root), `saola-ocr-${gone}`);
      const liveRoot = path.join(path.dirname(root), `saola-ocr-${sleeper.pid}`);
      for (const r of [deadRoot, liveRoot]) {
        fs.mkdirSync(path.join(r, 't3', 'eAbc'), { recursive: true });
        fs.writeFileSync(path.join(r, 't3', 'eAbc', '7.png'), 'card crop');
      }
      fs.mkdirSync(root, { recursive: true });
      assert.ok(sweepStaleScratch() >= 1);
      assert.equal(fs.existsSync(deadRoot), false);
      assert.equal(fs.existsSync(path.join(liveRoot, 't3', 'eAbc', '7.png')), true);
      assert.equal(fs.existsSync(root), true, "this process's own folder stays");
      fs.rmSync(liveRoot, { recursive: true, force: true });
    } finally {
      sleeper.kill();
    }
  });
});
