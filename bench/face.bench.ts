/**
 * `npm run bench -- face`: detect+embed CPU time per image (one thread, in
 * process), search latency over 1k / 100k / 1M 512-d faces in one
 * collection (answers checked against a float32 brute force), and search
 * requests/s over HTTP on loopback.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { analyze } from '../src/face/engine/worker.js';
import { CollectionIndex, EXACT_FROM_COSINE } from '../src/face/search/index-cache.js';
import { startTestApp } from '../fixtures/servers/app.js';
import fs from 'node:fs';
import { fixture, placements } from '../fixtures/faces/photos.js';
import { boxInUpload } from '../src/face/evaluation.js';
import type { BenchRow } from './harness.js';

function randomUnit(dim: number, seed: { s: number }): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    seed.s = (seed.s * 1664525 + 1013904223) >>> 0;
    v[i] = seed.s / 2 ** 32 - 0.5;
    n += v[i] * v[i];
  }
  n = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] /= n;
  return v;
}

/** `base` turned towards `noise` so that their cosine is exactly `cosine`. */
function towards(base: Float32Array, noise: Float32Array, cosine: number): Float32Array {
  const d = base.reduce((a, x, i) => a + x * noise[i], 0);
  const ortho = noise.map((x, i) => x - d * base[i]);
  const n = Math.sqrt(ortho.reduce((a, x) => a + x * x, 0));
  return base.map((x, i) => cosine * x + Math.sqrt(1 - cosine * cosine) * (ortho[i] / n));
}

export default async function faceBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const images = ['grace_hopper.jpg', 'person-a.jpg', 'person-c.jpg'].map(fixture);
  const vga = await sharp(fixture('grace_hopper.jpg')).resize(640, 750).jpeg().toBuffer();
  await analyze({ image: images[0], detectThreshold: 0.7, checkCard: false }); // load models
  // Photos that take the extra passes (issue 14): a person next to a blurred crowd (more faces get landmarks), small in a
  // wide shot (tiled pass), turned 90 degrees without EXIF (turned passes); and a large real photo when ../shared is there.
  const base = await analyze({ image: images[0], detectThreshold: 0.7, checkCard: false });
  if (!base.ok || !base.primary) throw new Error('no face in grace_hopper.jpg');
  const placed = await placements(images[0], boxInUpload(base, base.faces[0]), fixture('group.jpg'));
  const pick = (name: string) => [placed.find((p) => p.name === name)!.image];
  const large = '/work/shared/data/faces/img4.jpg';
  const sets: [string, Buffer[], boolean][] = [
    ['fixtures ~600x700', images, false],
    ['640x750 portrait', [vga], false],
    ['fixtures + ID-card check', images, true],
    ['2500x2070 next to a blurred crowd', pick('next to a blurred crowd'), false],
    ['3000x2000, small in a wide shot', pick('small in a wide shot'), false],
    ['turned 90 without EXIF', pick('turned 90 without EXIF'), false],
  ];
  if (fs.existsSync(large)) sets.push(['2500x1728 real photo (shared img4.jpg)', [fs.readFileSync(large)], false]);
  for (const [label, imgs, checkCard] of sets) {
    // CPU time of the whole process (this thread, sharp's threads, onnxruntime) per image: the machine may be shared, so wall time is only noted.
    const cpu: number[] = [];
    const wall: number[] = [];
    const rounds = imgs.length === 1 ? 15 : 9;
    for (let round = 0; round < rounds; round++) {
      for (const image of imgs) {
        const c = process.cpuUsage();
        const t = performance.now();
        await analyze({ image, detectThreshold: 0.7, checkCard });
        wall.push(performance.now() - t);
        const used = process.cpuUsage(c);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
    rows.push({
      benchmark: `detect+landmarks+embed+eyes (${label})`,
      metric: 'median CPU',
      value: at(cpu, 0.5),
      unit: 'ms',
      goal: checkCard || (imgs.length === 1 && imgs[0] !== vga) ? undefined : '<= 60',
      note: `one thread, decode included; CPU p10-p90 ${at(cpu, 0.1).toFixed(1)}-${at(cpu, 0.9).toFixed(1)} ms; wall median ${at(wall, 0.5).toFixed(1)} ms`,
    });
  }

  // Search in one collection of 1k / 100k / 1M random unit faces. Three query sets, each judged against a float32 brute force:
  // genuine (a stored face + noise, cosine ~0.86), at the threshold (a stored face moved to just above the cosine of the
  // default similarity threshold), and strangers (nothing near: the API must answer "not found", as the brute force would).
  const seed = { s: 7 };
  for (const size of [1_000, 100_000, 1_000_000]) {
    const idx = new CollectionIndex(512, size);
    const stored: Float32Array[] = [];
    for (let i = 0; i < size; i++) {
      const v = randomUnit(512, seed);
      idx.add(`u${i}`, v);
      if (i % Math.max(1, Math.floor(size / 20)) === 0) stored.push(v);
    }
    const rss = process.memoryUsage().rss;
    const perSet = size >= 1_000_000 ? 10 : 20;
    const sets = {
      genuine: Array.from({ length: perSet }, (_, q) => {
        const noise = randomUnit(512, seed);
        const v = stored[q % stored.length].map((x, i) => x + 0.6 * noise[i]);
        const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
        return v.map((x) => x / n);
      }),
      threshold: Array.from({ length: perSet }, (_, q) => towards(stored[(q * 7) % stored.length], randomUnit(512, seed), EXACT_FROM_COSINE + 0.02)),
      strangers: Array.from({ length: perSet }, () => randomUnit(512, seed)),
    };
    const vectors: Float32Array = idx['vectors'];
    const bruteForce = (q: Float32Array) => {
      let best = -2;
      let at = -1;
      for (let i = 0; i < size; i++) {
        let s = 0;
        for (let j = 0; j < 512; j++) s += vectors[i * 512 + j] * q[j];
        if (s > best) [best, at] = [s, i];
      }
      return { owner: `u${at}`, cosine: best };
    };
    const wall: number[] = [];
    const cpu: number[] = [];
    const agree: Record<string, number> = {};
    for (const [name, qs] of Object.entries(sets)) {
      agree[name] = 0;
      for (const q of qs) {
        const c = process.cpuUsage();
        const t = performance.now();
        const [best] = idx.search(q, 1);
        wall.push(performance.now() - t);
        const used = process.cpuUsage(c);
        cpu.push((used.user + used.system) / 1000);
        const truth = bruteForce(q);
        // The API answers the best face at or above the threshold, else "not found": strangers agree when both are below it.
        const same = best.owner === truth.owner && Math.abs(best.cosine - truth.cosine) < 1e-5;
        if (same || (name === 'strangers' && truth.cosine < EXACT_FROM_COSINE && best.cosine < EXACT_FROM_COSINE)) agree[name]++;
      }
    }
    const [w, cp] = [wall, cpu].map((xs) => xs.sort((a, b) => a - b));
    const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    rows.push({
      benchmark: `face search, ${size.toLocaleString('en-US')} faces`,
      metric: 'median per query',
      value: pct(w, 0.5),
      unit: 'ms',
      goal: size === 100_000 ? '<= 5' : size === 1_000_000 ? '<= 30' : undefined,
      note:
        `wall p10-p90 ${pct(w, 0.1).toFixed(2)}-${pct(w, 0.9).toFixed(2)}, CPU median ${pct(cp, 0.5).toFixed(2)}; ` +
        `vs float32 brute force (${perSet} each): genuine recall@1 ${(agree.genuine / perSet).toFixed(2)}, ` +
        `at threshold recall@1 ${(agree.threshold / perSet).toFixed(2)}, strangers same API answer ${(agree.strangers / perSet).toFixed(2)}` +
        (size > 4096 ? '; 1024-bit sign codes + float32 rerank' : '; float32 scan'),
    });
    if (size === 1_000_000)
      rows.push({
        benchmark: 'process RSS with the 1M-face index',
        metric: 'rss',
        value: rss / 2 ** 20,
        unit: 'MiB',
        note: 'after building it (float32 rows 2 GB + codes 128 MB), bench process',
      });
  }

  // Search over HTTP: one collection of 50 faces, same query repeatedly (engine-bound).
  const app = await startTestApp();
  try {
    const post = async (path: string, parts: [string, string | Buffer][]) => {
      const form = new FormData();
      for (const [k, v] of parts) {
        if (typeof v === 'string') form.append(k, v);
        else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'p.jpg');
      }
      const res = await fetch(app.url + path, { method: 'POST', headers: { api_key: app.apiKey }, body: form });
      return res.json();
    };
    await post('/dmp/facesearch/v2/add', [
      ['collection', 'b'],
      ['id', 'g'],
      ['file', images[0]],
    ]);
    await post('/dmp/facesearch/v2/add', [
      ['collection', 'b'],
      ['id', 'a'],
      ['file', images[1]],
    ]);
    const n = 20;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: n }, () =>
        post('/dmp/facesearch/v2/search', [
          ['collection', 'b'],
          ['file', images[0]],
        ]),
      ),
    );
    rows.push({
      benchmark: 'POST /dmp/facesearch/v2/search over HTTP',
      metric: 'throughput',
      value: n / ((performance.now() - t) / 1000),
      unit: 'req/s',
      note: `${n} concurrent, pool threads = SAOLA_FACE_THREADS`,
    });
  } finally {
    await app.close();
  }
  return rows;
}
