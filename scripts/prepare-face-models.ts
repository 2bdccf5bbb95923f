/**
 * Derives the face models the engine runs from the files of
 * faceplugin-face-recognition-js@0.0.1 (see models/face/README.md).
 *
 *   npx tsx scripts/prepare-face-models.ts            # (re)write models/face/fr_feature_opt.onnx
 *   npx tsx scripts/prepare-face-models.ts --check    # rebuild in memory, compare with models.json (exit 1 on a mismatch)
 *   npx tsx scripts/prepare-face-models.ts --int8 [--check-dir <dir>] [--out <file>]
 *
 * fr_feature_opt.onnx is fr_feature.onnx with its 33 PRelu nodes rewritten
 * as two depthwise 1x1 convolutions each (`rewritePRelu` in onnx-graph.ts):
 * the same function, about 40% less CPU in onnxruntime. The script checks the
 * two models agree on real photos (crops of the test fixtures) and prints the
 * sha256 to record in src/face/engine/models.json. The output is deterministic.
 *
 * `--int8` is the measured-and-rejected alternative, kept reproducible: it
 * quantises the embedding net to int8 (QDQ, onnx-qdq.ts; calibration on the
 * aligned faces of test/fixtures/face and their augmentations, never the
 * evaluation set) in a few variants and prints, for each, the cosine between
 * float and int8 embeddings (on the calibration faces and on the jpg files of
 * every --check-dir) and the CPU time per run. `--out` writes the last variant.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { graphOf, readModel, rewritePRelu, writeModel, type Node } from './onnx-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modelDir = path.join(root, 'models/face');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'src/face/engine/models.json'), 'utf8')) as { files: Record<string, { sha256: string }> };
const args = process.argv.slice(2);
const valueOf = (flag: string) => args.flatMap((a, i) => (args[i - 1] === flag ? [a] : []));
const SHAPE = [1, 3, 112, 112];
const SOURCE = 'fr_feature.onnx';
const TARGET = 'fr_feature_opt.onnx';

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

function readSource(): Uint8Array {
  const bytes = fs.readFileSync(path.join(modelDir, SOURCE));
  if (sha256(bytes) !== manifest.files[SOURCE].sha256) throw new Error(`${SOURCE} does not match models.json: run node scripts/fetch-face-models.mjs`);
  return bytes;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}

async function session(model: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
}

async function embeddings(model: Uint8Array, inputs: Float32Array[]): Promise<Float32Array[]> {
  const s = await session(model);
  const out: Float32Array[] = [];
  for (const x of inputs) out.push((await s.run({ input: new ort.Tensor('float32', x, SHAPE) })).output.data as Float32Array);
  await s.release();
  return out;
}

/** Median CPU ms of one run (after warm-up), this thread only. */
async function cpuMs(model: Uint8Array, input: Float32Array, runs = 60): Promise<{ median: number; p10: number; p90: number }> {
  const s = await session(model);
  const feed = { input: new ort.Tensor('float32', input, SHAPE) };
  for (let i = 0; i < 5; i++) await s.run(feed);
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    await s.run(feed);
    const d = process.cpuUsage(c);
    t.push((d.user + d.system) / 1000);
  }
  await s.release();
  t.sort((a, b) => a - b);
  return { median: t[runs >> 1], p10: t[Math.floor(runs * 0.1)], p90: t[Math.floor(runs * 0.9)] };
}

/** 112x112 centre crops of the fixture photos as fr_feature inputs: real pixel statistics, no engine needed. */
async function fixtureCrops(): Promise<Float32Array[]> {
  const dir = path.join(root, 'test/fixtures/face');
  const out: Float32Array[] = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .sort()) {
    const rgb = await sharp(fs.readFileSync(path.join(dir, f)))
      .resize(112, 112, { fit: 'cover' })
      .removeAlpha()
      .raw()
      .toBuffer();
    const x = new Float32Array(3 * 112 * 112);
    for (let i = 0; i < 112 * 112; i++) for (let c = 0; c < 3; c++) x[c * 112 * 112 + i] = (rgb[3 * i + c] - 127.5) / 128;
    out.push(x);
  }
  return out;
}

async function buildOptimised(): Promise<Uint8Array> {
  const model = readModel(readSource());
  const n = rewritePRelu(model);
  if (n === 0) throw new Error(`${SOURCE} has no PRelu to rewrite`);
  model.producerName = 'saola scripts/prepare-face-models.ts (PRelu rewrite)';
  return writeModel(model);
}

async function prepare(checkOnly: boolean): Promise<void> {
  const source = readSource();
  const optimised = await buildOptimised();
  const digest = sha256(optimised);
  const recorded = manifest.files[TARGET]?.sha256;
  if (checkOnly) {
    const onDisk = fs.existsSync(path.join(modelDir, TARGET)) ? sha256(fs.readFileSync(path.join(modelDir, TARGET))) : 'missing';
    console.log(`${TARGET}: rebuilt ${digest}, on disk ${onDisk}, models.json ${recorded}`);
    process.exit(digest === recorded && onDisk === recorded ? 0 : 1);
  }
  const inputs = await fixtureCrops();
  const a = await embeddings(source, inputs);
  const b = await embeddings(optimised, inputs);
  let maxDiff = 0;
  let minCos = 1;
  a.forEach((x, i) => {
    minCos = Math.min(minCos, cosine(x, b[i]));
    for (let k = 0; k < x.length; k++) maxDiff = Math.max(maxDiff, Math.abs(x[k] - b[i][k]));
  });
  if (minCos < 0.99999) throw new Error(`the rewritten model disagrees with ${SOURCE} (min cosine ${minCos})`);
  fs.writeFileSync(path.join(modelDir, TARGET), optimised);
  console.log(
    `wrote models/face/${TARGET}: ${optimised.length} bytes, sha256 ${digest}${recorded === digest ? ' (as in models.json)' : ' (NOT the sha256 in models.json: update it and models/face/README.md)'}`,
  );
  console.log(`agreement on ${inputs.length} fixture crops: min cosine ${minCos.toFixed(7)}, max |difference| ${maxDiff.toExponential(2)}`);
  const [s, o] = [await cpuMs(source, inputs[0]), await cpuMs(optimised, inputs[0])];
  console.log(
    `CPU per run (one thread): ${SOURCE} ${s.median.toFixed(2)} ms [p10 ${s.p10.toFixed(2)}, p90 ${s.p90.toFixed(2)}], ${TARGET} ${o.median.toFixed(2)} ms [p10 ${o.p10.toFixed(2)}, p90 ${o.p90.toFixed(2)}]`,
  );
}

async function int8Report(): Promise<void> {
  // Imported here: the engine needs the prepared models to find and align faces.
  const { alignFace, analyze, decodeImage, featureInput } = await import('../src/face/engine/worker.js');
  const { augment } = await import('../fixtures/faces/photos.js');
  const { activationsToQuantize, calibrate, correctBiases, quantize } = await import('./onnx-qdq.js');
  const faceInputs = async (photos: Buffer[]) => {
    const out: Float32Array[] = [];
    for (const photo of photos) {
      const r = await analyze({ image: photo, detectThreshold: 0.7, checkCard: false });
      if (!r.ok || !r.primary) continue;
      out.push(featureInput(alignFace((await decodeImage(photo)).img, r.primary.landmarks)));
    }
    return out;
  };
  const fixtures = path.join(root, 'test/fixtures/face');
  const photos: Buffer[] = [];
  for (const f of fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.jpg') && f !== 'group.jpg')
    .sort()) {
    const src = fs.readFileSync(path.join(fixtures, f));
    photos.push(src, ...Object.values(await augment(src)));
  }
  const calib = await faceInputs(photos);
  const checks = await Promise.all(
    valueOf('--check-dir').map(async (dir) => ({
      dir,
      inputs: await faceInputs(
        fs
          .readdirSync(dir)
          .filter((f) => /\.jpe?g$/i.test(f))
          .sort()
          .map((f) => fs.readFileSync(path.join(dir, f))),
      ),
    })),
  );
  console.log(`calibration: ${calib.length} aligned faces (test/fixtures/face and augmentations)`);
  const stats = (a: Float32Array[], b: Float32Array[]) => {
    const c = a.map((x, i) => cosine(x, b[i])).sort((p, q) => p - q);
    return `min ${c[0].toFixed(4)} median ${c[c.length >> 1].toFixed(4)}`;
  };
  const floatModels = { [SOURCE]: readSource(), [TARGET]: await buildOptimised() };
  let last: Uint8Array | undefined;
  for (const [name, bytes] of Object.entries(floatModels)) {
    const model = readModel(bytes);
    const convs = (graphOf(model).node as Node[]).filter((n) => n.opType === 'Conv').map((n) => n.output[0]);
    const reference = await embeddings(bytes, calib);
    const refChecks = await Promise.all(checks.map((c) => embeddings(bytes, c.inputs)));
    const t = await cpuMs(bytes, calib[0]);
    console.log(`${name} float: ${t.median.toFixed(2)} ms`);
    const variants: [string, string[]][] = [
      ['all convs int8 but the last', [convs.at(-1)!]],
      ['... and the 512-d expansion and 7x7 GDC float', convs.slice(-3)],
    ];
    for (const [label, keep] of variants) {
      const opts = { ops: new Set(['Conv', 'Add']), keepFloat: new Set(keep), reduceRange: true };
      const ranges = await calibrate(model, activationsToQuantize(model, opts), calib, SHAPE, 'mse');
      const biasShift = await correctBiases(model, ranges, opts, calib, SHAPE);
      last = writeModel(quantize(model, ranges, { ...opts, biasShift }));
      const q = await cpuMs(last, calib[0]);
      const qChecks = await Promise.all(checks.map((c) => embeddings(last!, c.inputs)));
      const extra = checks.map((c, i) => `, ${c.dir} ${stats(refChecks[i], qChecks[i])}`).join('');
      console.log(`  int8 (${label}): ${q.median.toFixed(2)} ms; cosine to float: calibration ${stats(reference, await embeddings(last, calib))}${extra}`);
    }
  }
  const out = valueOf('--out')[0];
  if (out && last) {
    fs.writeFileSync(out, last);
    console.log(`wrote ${out} (${last.length} bytes, sha256 ${sha256(last)})`);
  }
}

if (args.includes('--int8')) await int8Report();
else await prepare(args.includes('--check'));
