/**
 * A long-lived Debian `tesseract` process: started once per OCR setting
 * (language, page segmentation, whitelist) and fed one image path per line on
 * stdin (`-c stream_filelist=1`), so the model loads once instead of once per
 * call (measured 0.12 s CPU per start, about half of a card's OCR).
 *
 * Tesseract writes each page's TSV in one piece when the page is done, but
 * stdout into a pipe is block-buffered: `stdbuf -o0` (coreutils) makes it
 * unbuffered. To know where a page ends, every image is followed by a tiny
 * blank "sentinel" page: the sentinel's page line closes the image before it.
 * A process that dies (an unreadable image makes Tesseract exit) or runs past
 * the timeout fails its pending call and is started again on the next one.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import sharp from 'sharp';

export interface StreamArgs {
  lang: string;
  psm: number;
  whitelist?: string;
  /** A folder of .traineddata files to use instead of the program's own. */
  tessdataDir?: string;
}

interface Pending {
  page: number;
  lines: string[];
  resolve: (tsv: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  file: string;
}

/**
 * The `tesseract` options of one OCR setting, for a long-lived process and a one-off run alike.
 * `tessedit_do_invert=0`: Tesseract 5 reads every line it reads unsurely a second time, inverted (white on black);
 * the reader hands it black text on white only, so that second reading is wasted (about 4% of its CPU on the
 * development set's fronts; no field turned right or wrong there or on the synthetic set, a few `_prob` moved).
 */
export function tesseractOptions(args: StreamArgs): string[] {
  const out = [...(args.tessdataDir ? ['--tessdata-dir', args.tessdataDir] : []), '-l', args.lang, '--psm', String(args.psm), '--oem', '1'];
  if (args.whitelist) out.push('-c', `tessedit_char_whitelist=${args.whitelist}`);
  out.push('-c', 'preserve_interword_spaces=0', '-c', 'tessedit_do_invert=0');
  return out;
}

/** True when `stdbuf` (coreutils) can run: without it the streaming mode cannot see pages end. */
export function stdbufAvailable(): boolean {
  try {
    execFileSync('stdbuf', ['--version'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The images handed to Tesseract are crops of ID cards: they must not outlive the process that wrote them.
 * Each process keeps them under one folder named by its pid (shared memory when the machine has it), each
 * thread under a subfolder named by its thread id, each engine in a fresh folder inside that:
 * `saola-ocr-<pid>/t<threadId>/<random>`. An engine's close removes its folder; a thread that is terminated
 * (the worker pool's idle timeout or a task's time limit; no code runs in the thread then) has its subfolder
 * removed by the pool's owner (`removeThreadScratch`); the process removes its folder when it exits
 * (`removeProcessScratchOnExit`); a process that was killed leaves its folder to the next one
 * (`sweepStaleScratch`, run when the first engine of a process starts).
 */
const SCRATCH_PREFIX = 'saola-ocr-';

function scratchBase(): string {
  return fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
}

/** This process's scratch folder. */
export function processScratchRoot(pid = process.pid): string {
  return path.join(scratchBase(), `${SCRATCH_PREFIX}${pid}`);
}

/** The scratch subfolder of one thread of this process. */
export function threadScratchDir(id = threadId): string {
  return path.join(processScratchRoot(), `t${id}`);
}

/** Removes what a thread of this process left (call after the thread has ended). */
export function removeThreadScratch(id: number): void {
  fs.rmSync(threadScratchDir(id), { recursive: true, force: true });
}

let removalOnExit = false;
/** Removes this process's scratch folder when the process exits (registered once, from the main thread). */
export function removeProcessScratchOnExit(): void {
  if (removalOnExit) return;
  removalOnExit = true;
  process.on('exit', () => fs.rmSync(processScratchRoot(), { recursive: true, force: true }));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the scratch folders of processes that are gone; returns how many. */
export function sweepStaleScratch(): number {
  let removed = 0;
  const base = scratchBase();
  for (const name of fs.readdirSync(base)) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const pid = Number(name.slice(SCRATCH_PREFIX.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    fs.rmSync(path.join(base, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

let swept = false;
/** A fresh folder for one engine of this thread (the first in a process also sweeps dead processes' folders). */
function makeScratchDir(): string {
  if (!swept) {
    swept = true;
    try {
      sweepStaleScratch();
    } catch {
      // Best effort: a folder another process removes at the same time is not an error here.
    }
  }
  const parent = threadScratchDir();
  fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
  return fs.mkdtempSync(path.join(parent, 'e'));
}

/** Names the image files; the folder is this thread's own (mkdtemp), shared by its streams. */
let fileSeq = 0;

export class TesseractStream {
  private child?: ChildProcessWithoutNullStreams;
  /** Pages the running process has been given (each call takes two: image + sentinel). */
  private pages = 0;
  private pending?: Pending;
  private queue: Promise<unknown> = Promise.resolve();
  private buffered = '';
  private stderrTail = '';
  private closed = false;

  constructor(
    private readonly args: StreamArgs,
    private readonly dir: string,
    private readonly sentinel: string,
    private readonly timeoutMs: number,
  ) {}

  /** Process ids of the running Tesseract (for CPU accounting). */
  pid(): number | undefined {
    return this.child?.pid;
  }

  /** Recognises one image (PNG or PGM); calls on one stream run one after another. */
  recognize(image: Buffer): Promise<string> {
    const run = this.queue.then(() => this.recognizeNow(image));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private start(): ChildProcessWithoutNullStreams {
    const args = ['-o0', 'tesseract', 'stdin', 'stdout', ...tesseractOptions(this.args), '-c', 'stream_filelist=1', 'tsv'];
    const child = spawn('stdbuf', args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pages = 0;
    this.buffered = '';
    this.stderrTail = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => this.onData(d));
    child.stderr.setEncoding('utf8');
    // Tesseract reports each page and resolution warnings there; only the tail is kept for error messages.
    child.stderr.on('data', (d: string) => (this.stderrTail = (this.stderrTail + d).slice(-400)));
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => this.onExit(child, err.message));
    child.on('exit', (code, signal) => this.onExit(child, `tesseract exited (${signal ?? code}): ${this.stderrTail.trim().slice(-300)}`));
    // A live child must not keep the process (or a worker thread) from ending.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();
    this.child = child;
    return child;
  }

  private recognizeNow(image: Buffer): Promise<string> {
    if (this.closed) return Promise.reject(new Error('OCR engine closed'));
    const child = this.child && this.child.exitCode === null && !this.child.killed ? this.child : this.start();
    // Leptonica tells the format from the bytes; the name says it for whoever looks at the folder.
    const file = path.join(this.dir, `${fileSeq++}.${image.subarray(0, 2).toString('latin1') === 'P5' ? 'pgm' : 'png'}`);
    fs.writeFileSync(file, image);
    const page = this.pages + 1;
    this.pages += 2;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`tesseract took longer than ${this.timeoutMs} ms`));
        child.kill('SIGKILL');
      }, this.timeoutMs);
      this.pending = { page, lines: [], resolve, reject, timer, file };
      child.stdin.write(`${file}\n${this.sentinel}\n`);
    });
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    const p = this.pending;
    if (!p) return;
    const tab1 = line.indexOf('\t');
    const tab2 = line.indexOf('\t', tab1 + 1);
    const page = Number(line.slice(tab1 + 1, tab2));
    if (page === p.page) p.lines.push(line);
    else if (page === p.page + 1 && line.startsWith('1\t')) {
      this.settle();
      // parseTsv skips the first line (the TSV header when Tesseract writes a whole file).
      p.resolve(`header\n${p.lines.join('\n')}`);
    }
  }

  private settle(): Pending | undefined {
    const p = this.pending;
    if (!p) return undefined;
    this.pending = undefined;
    clearTimeout(p.timer);
    // At once, not with a callback: an idle piscina worker blocks its event loop (Atomics.wait) until the next
    // task, so an asynchronous removal of a task's last image would wait that long.
    fs.rmSync(p.file, { force: true });
    return p;
  }

  private fail(err: Error): void {
    this.settle()?.reject(err);
  }

  private onExit(child: ChildProcessWithoutNullStreams, message: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.fail(new Error(message));
  }

  close(): void {
    this.closed = true;
    this.fail(new Error('OCR engine closed'));
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null) {
      child.stdin.end();
      child.kill('SIGTERM');
    }
  }
}

/** The streams of one engine, one per OCR setting, sharing a scratch folder and the sentinel page. */
export class TesseractStreams {
  private readonly streams = new Map<string, TesseractStream>();
  private scratch?: Promise<{ dir: string; sentinel: string }>;
  /** Set as soon as the folder exists, so that close can remove it at once (also from an 'exit' handler). */
  private dir?: string;
  private closed = false;

  constructor(private readonly timeoutMs: number) {}

  async recognize(image: Buffer, args: StreamArgs): Promise<string> {
    if (this.closed) throw new Error('OCR engine closed');
    const key = `${args.lang}|${args.psm}|${args.whitelist ?? ''}|${args.tessdataDir ?? ''}`;
    let stream = this.streams.get(key);
    if (!stream) {
      const scratch = await this.ensureScratch();
      if (this.closed) throw new Error('OCR engine closed');
      stream = new TesseractStream(args, scratch.dir, scratch.sentinel, this.timeoutMs);
      this.streams.set(key, stream);
    }
    return stream.recognize(image);
  }

  pids(): number[] {
    return [...this.streams.values()].map((s) => s.pid()).filter((p): p is number => p !== undefined);
  }

  private ensureScratch(): Promise<{ dir: string; sentinel: string }> {
    this.scratch ??= (async () => {
      const dir = makeScratchDir();
      this.dir = dir;
      const sentinel = path.join(dir, 'sentinel.png');
      fs.writeFileSync(
        sentinel,
        await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ffffff' } })
          .png()
          .toBuffer(),
      );
      return { dir, sentinel };
    })();
    return this.scratch;
  }

  /** The engine's scratch folder, once it has one. */
  scratchDir(): string | undefined {
    return this.dir;
  }

  /** Ends the processes and removes the scratch folder; synchronous, so an 'exit' handler can call it. */
  close(): void {
    this.closed = true;
    for (const s of this.streams.values()) s.close();
    this.streams.clear();
    if (this.dir) {
      fs.rmSync(this.dir, { recursive: true, force: true });
      // The thread's folder too when no other engine of this thread uses it (only this thread writes there).
      try {
        fs.rmdirSync(path.dirname(this.dir));
      } catch {
        // Not empty: another engine of this thread still has its folder there.
      }
    }
    this.dir = undefined;
  }
}
