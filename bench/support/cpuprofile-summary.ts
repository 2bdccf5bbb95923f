/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_CPU_PROF=<folder>` for the bench servers) by self
 * time: the functions, and the files or packages, where the samples landed; optionally the inclusive time of
 * functions whose name matches a pattern (everything they called included).
 *
 *   npx tsx bench/support/cpuprofile-summary.ts FILE.cpuprofile [--top 40] [--skip-ms 3000] [--until-ms N] [--inclusive 'regexp'] [--max-gap-ms 2] [--parts]
 *
 * `--skip-ms` drops the first samples (start-up: module loading, migrations) so the table shows the load.
 * `--max-gap-ms 2` caps each sample's time (V8 samples every 1 ms): on a shared machine the gap after a
 * preemption otherwise lands on whatever ran next, often the write syscall that woke the load generator.
 * `--parts` adds the request path's parts (`REQUEST_PARTS`): each sample goes to the part of the innermost frame
 * on its stack that belongs to one (a Map lookup inside the credential cache is authentication), so the parts'
 * shares add up; the socket write is shown apart and left out of the others' shares (V8 charges it with time the
 * thread was switched out: docs/nlu.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, a project file, or Node's own. */
function areaOf(url: string): string {
  if (!url) return '(native or V8)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = clean.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (clean.startsWith('node:')) return clean;
  const src = clean.search(/\/(src|bench|test)\//);
  return src >= 0 ? clean.slice(src + 1) : path.basename(clean);
}

function frameName(node: ProfileNode): string {
  const f = node.callFrame;
  const where = f.url ? `${areaOf(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
}

/** The request path's parts, innermost first wins; matched against `function@url` of each frame. */
export const REQUEST_PARTS: [string, RegExp][] = [
  ['socket write (writev)', /^writev@|^writevGeneric@|^writeBuffer@|^writeUtf8String@/],
  ['NLU engine', /\/nlu\/engine\//],
  ['NLU prediction service, model cache', /\/nlu\/(prediction|predictor|model-cache)\.[jt]s/],
  ['NLU sample service and store', /\/nlu\/(service|store|list-cache)\.[jt]s|write-batcher|\/platform\/ids\.[jt]s|uuidv7/],
  ['request logging (pino, sonic-boom)', /pino|sonic-boom|logger-factory|^(req|redactUrl)@.*\/app\.[jt]s/],
  ['response serialisation (fast-json-stringify)', /fast-json-stringify/],
  ['body read and parse', /platform\/http\/body\.[jt]s|secure-json-parse/],
  ['NUL guard', /http\/nul\.[jt]s/],
  ['authentication', /auth\/(hooks|credentials)\.[jt]s/],
  ['metering and quota', /platform\/usage\//],
  ['overload guard', /overload\.[jt]s/],
  ['CORS', /cors\.[jt]s/],
  ['security headers, request id', /security-headers\.[jt]s|randomUUID|^genReqId@/],
  ['job queue polls, database drivers', /platform\/(jobs|db)\/|kysely|better-sqlite3|node_modules\/pg/],
  ['fastify (routing, hooks, validation, reply)', /node_modules\/(fastify|find-my-way|avvio|toad-cache|ajv)\/|^validate\d*@|^anonymous\d*@/],
  ["Node's HTTP (parser, request and response objects, streams, ticks)", /@node:|^\(program\)@|^\(anonymous\)@$|^runMicrotasks@/],
  ['GC', /^\(garbage collector\)@/],
];

export function summarise(profile: Profile, opts: { top: number; skipMs: number; untilMs: number; inclusive?: RegExp; maxGapMs?: number; parts?: boolean }): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parts = new Map<string, number>();
  let total = 0;
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t / 1000 < opts.skipMs || t / 1000 > opts.untilMs) continue;
    // A sample's time is the gap to the next one; `maxGapMs` caps it, so a sample taken after the process was
    // descheduled (a loaded machine) does not charge the whole wait to the function it landed in.
    const dt = Math.min((profile.timeDeltas[i + 1] ?? 0) / 1000, opts.maxGapMs ?? Infinity);
    const node = byId.get(profile.samples[i])!;
    const name = node.callFrame.functionName;
    if (name === '(idle)') continue;
    total += dt;
    const key = frameName(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const a = name.startsWith('(') ? name : areaOf(node.callFrame.url);
    area.set(a, (area.get(a) ?? 0) + dt);
    if (opts.parts) {
      let part = 'other';
      find: for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
        const f = byId.get(id)!.callFrame;
        const frame = `${f.functionName || '(anonymous)'}@${f.url}${f.url ? `:${f.lineNumber + 1}` : ''}`;
        for (const [label, pattern] of REQUEST_PARTS) {
          if (pattern.test(frame)) {
            part = label;
            break find;
          }
        }
      }
      parts.set(part, (parts.get(part) ?? 0) + dt);
    }
    if (opts.inclusive) {
      const seen = new Set<string>();
      for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
        const n = byId.get(id)!;
        const k = frameName(n);
        if (!opts.inclusive.test(k) || seen.has(k)) continue;
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
      }
    }
  }
  const table = (title: string, m: Map<string, number>, top: number) => {
    const rows = [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
    return [
      `${title} (of ${total.toFixed(0)} ms busy)`,
      ...rows.map(([k, ms]) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`),
    ].join('\n');
  };
  const out = [table('self time by area', area, opts.top), table('self time by function', self, opts.top)];
  if (opts.inclusive) out.push(table(`inclusive time of /${opts.inclusive.source}/`, inclusive, opts.top));
  if (opts.parts) {
    const write = parts.get(REQUEST_PARTS[0]![0]) ?? 0;
    const rest = total - write;
    const rows = [...parts].filter(([k]) => k !== REQUEST_PARTS[0]![0]).sort((a, b) => b[1] - a[1]);
    out.push(
      [
        `request path parts (innermost frame first): the socket write ${write.toFixed(0)} ms (${((100 * write) / total).toFixed(1)}% of busy), the rest's shares of ${rest.toFixed(0)} ms`,
        ...rows.map(([k, ms]) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / rest).toFixed(1).padStart(5)}%  ${k}`),
      ].join('\n'),
    );
  }
  return out.join('\n\n');
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '40' },
      'skip-ms': { type: 'string', default: '0' },
      'until-ms': { type: 'string', default: String(Number.MAX_SAFE_INTEGER) },
      inclusive: { type: 'string' },
      'max-gap-ms': { type: 'string' },
      parts: { type: 'boolean', default: false },
    },
  });
  for (const file of positionals) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
    console.log(`== ${file}`);
    console.log(
      summarise(profile, {
        top: Number(values.top),
        skipMs: Number(values['skip-ms']),
        untilMs: Number(values['until-ms']),
        inclusive: values.inclusive ? new RegExp(values.inclusive) : undefined,
        maxGapMs: values['max-gap-ms'] ? Number(values['max-gap-ms']) : undefined,
        parts: values.parts,
      }),
    );
  }
}
