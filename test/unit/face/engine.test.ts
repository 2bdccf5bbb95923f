import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { ARCFACE_112, umeyama } from '../../../src/face/engine/align.js';
import { decodeDetections, nms } from '../../../src/face/engine/detect.js';
import { assessFace, looksLikeIdCard } from '../../../src/face/engine/index.js';
import { FACE_MODELS, loadVerifiedModels, ModelIntegrityError } from '../../../src/face/engine/models.js';
import { cosineToSimilarity, dot, similarityToCosine } from '../../../src/face/engine/similarity.js';
import { warpAffine } from '../../../src/face/engine/image.js';
import { alignFace, analyze, decodeImage, featureInput, type AnalyzeResult } from '../../../src/face/engine/worker.js';
import * as ort from 'onnxruntime-node';
import { DT, floatTensor, graphOf, node, onnx, readModel, rewritePRelu, writeModel } from '../../../scripts/onnx-graph.js';
import { augment, fixture, idCardPhoto, withMask, withSunglasses } from '../../../fixtures/faces/photos.js';

const gates = { minFacePx: 40, secondFaceRatio: 0.25, minBlurVariance: 0 };
const run = (image: Buffer, checkCard = false) => analyze({ image, detectThreshold: 0.7, checkCard });

function embedding(r: AnalyzeResult): Float32Array {
  assert.ok(r.ok && r.primary, 'a face was found');
  return r.primary.embedding;
}

describe('face engine: pure parts', () => {
  it('maps cosine to similarity monotonically through the DESIGN.md knots', () => {
    assert.equal(cosineToSimilarity(0), 0);
    assert.equal(cosineToSimilarity(-0.4), 0);
    assert.ok(Math.abs(cosineToSimilarity(0.5) - 0.8) < 1e-9);
    assert.ok(Math.abs(cosineToSimilarity(0.6) - 0.85) < 1e-9);
    assert.ok(Math.abs(cosineToSimilarity(0.8) - 0.95) < 1e-9);
    assert.equal(cosineToSimilarity(1), 1);
    let prev = -1;
    for (let c = -1; c <= 1; c += 0.01) {
      const s = cosineToSimilarity(c);
      assert.ok(s >= prev);
      prev = s;
    }
    assert.ok(Math.abs(similarityToCosine(0.85) - 0.6) < 1e-9);
  });

  it('fits an exact similarity transform (Umeyama) when one exists', () => {
    const angle = 0.3;
    const scale = 1.7;
    const src = ARCFACE_112.map(
      ([x, y]) => [scale * (Math.cos(angle) * x - Math.sin(angle) * y) + 40, scale * (Math.sin(angle) * x + Math.cos(angle) * y) - 12] as [number, number],
    );
    const m = umeyama(src, ARCFACE_112);
    for (let i = 0; i < 5; i++) {
      const [x, y] = src[i];
      assert.ok(Math.abs(m[0] * x + m[1] * y + m[2] - ARCFACE_112[i][0]) < 1e-6);
      assert.ok(Math.abs(m[3] * x + m[4] * y + m[5] - ARCFACE_112[i][1]) < 1e-6);
    }
  });

  it('decodes detector outputs and suppresses overlapping boxes', () => {
    const scores = new Float32Array([0.1, 0.9, 0.2, 0.8, 0.9, 0.1, 0.3, 0.7]);
    const boxes = new Float32Array([0.1, 0.1, 0.5, 0.5, 0.11, 0.12, 0.5, 0.52, 0.6, 0.6, 0.9, 0.9, 0.6, 0.6, 0.9, 0.9]);
    const out = decodeDetections(scores, boxes, 100, 100, 0.5);
    assert.equal(out.length, 2);
    assert.ok(Math.abs(out[0].x1 - 10) < 1e-4 && out[0].score > 0.89);
    assert.ok(out[1].x1 > 59);
    assert.equal(
      nms(
        [
          { x1: 0, y1: 0, x2: 10, y2: 10, score: 1 },
          { x1: 20, y1: 20, x2: 30, y2: 30, score: 0.5 },
        ],
        0.4,
      ).length,
      2,
    );
  });

  it('warps exactly on whole-pixel maps and averages when it shrinks', () => {
    const width = 8;
    const height = 6;
    const data = new Uint8Array(width * height * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 251;
    const img = { data, width, height };
    // Identity and a whole-pixel shift reproduce the source pixels; outside repeats the border.
    assert.deepEqual(warpAffine(img, [1, 0, 0, 0, 1, 0], width, height).data, data);
    const shifted = warpAffine(img, [1, 0, 2, 0, 1, 1], 3, 2).data;
    for (let y = 0; y < 2; y++)
      for (let x = 0; x < 3; x++) for (let c = 0; c < 3; c++) assert.equal(shifted[(y * 3 + x) * 3 + c], data[((y + 1) * width + x + 2) * 3 + c]);
    assert.deepEqual([...warpAffine(img, [1, 0, -5, 0, 1, -5], 1, 1).data], [...data.subarray(0, 3)]);
    // A black/white checkerboard shrunk 4x is supersampled to mid-grey, not aliased to black or white.
    const board = new Uint8Array(64 * 64 * 3);
    for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) board.fill((x + y) % 2 ? 255 : 0, (y * 64 + x) * 3, (y * 64 + x) * 3 + 3);
    const small = warpAffine({ data: board, width: 64, height: 64 }, [4, 0, 1.5, 0, 4, 1.5], 16, 16).data;
    for (const v of small) assert.ok(Math.abs(v - 127.5) < 40, `checkerboard shrank to ${v}`);
  });

  it('rewrites PRelu into depthwise convolutions computing the same function', async () => {
    // Conv(3 -> 4 channels) -> PRelu with slopes below 0, between 0 and 1, and above 1.
    const slopes = Float32Array.of(-0.5, 0.25, 1.3, 0);
    const weights = Float32Array.from({ length: 4 * 3 }, (_, i) => Math.sin(i + 1));
    const graph = onnx.GraphProto.create({
      name: 'g',
      node: [node('Conv', ['x', 'w'], ['c'], 'conv', { kernel_shape: [1, 1] }), node('PRelu', ['c', 'a'], ['y'], 'prelu')],
      initializer: [floatTensor('w', [4, 3, 1, 1], weights), floatTensor('a', [4, 1, 1], slopes)],
      input: [onnx.ValueInfoProto.create({ name: 'x', type: { tensorType: { elemType: DT.FLOAT, shape: { dim: [1, 3, 5, 5].map((d) => ({ dimValue: d })) } } } })],
      output: [onnx.ValueInfoProto.create({ name: 'y', type: { tensorType: { elemType: DT.FLOAT } } })],
    });
    const original = writeModel(onnx.ModelProto.create({ irVersion: 7, opsetImport: [{ domain: '', version: 9 }], graph }));
    const model = readModel(original);
    assert.equal(rewritePRelu(model), 1);
    assert.ok(graphOf(model).node.every((n) => n.opType !== 'PRelu'));
    const x = new ort.Tensor(
      'float32',
      Float32Array.from({ length: 75 }, (_, i) => Math.cos(i * 0.7) * 3),
      [1, 3, 5, 5],
    );
    const run1 = async (bytes: Uint8Array) => (await (await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all' })).run({ x })).y.data as Float32Array;
    const [want, got] = [await run1(original), await run1(writeModel(model))];
    let negatives = 0;
    for (let i = 0; i < want.length; i++) {
      assert.ok(Math.abs(want[i] - got[i]) < 1e-5, `element ${i}: ${want[i]} vs ${got[i]}`);
      if (want[i] < 0) negatives++;
    }
    assert.ok(negatives > 0, 'the input reaches the negative side of the slopes');
  });

  it('refuses a model file whose sha256 does not match', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-models-'));
    for (const spec of Object.values(FACE_MODELS)) fs.writeFileSync(path.join(dir, spec.file), 'not the model');
    assert.throws(() => loadVerifiedModels(dir), ModelIntegrityError);
    fs.rmSync(dir, { recursive: true });
    assert.throws(() => loadVerifiedModels(dir), /missing/);
  });
});

describe('face engine: real models', () => {
  it('detects one face with landmarks and a unit 512-d embedding', async () => {
    const r = await run(fixture('grace_hopper.jpg'));
    assert.ok(r.ok);
    assert.equal(r.faces.length, 1);
    const e = embedding(r);
    assert.equal(e.length, 512);
    assert.ok(Math.abs(dot(e, e) - 1) < 1e-4);
    assert.equal(r.primary!.landmarks.length, 136);
    // The face lies in the upper middle of the portrait.
    const b = r.faces[0];
    assert.ok(b.x1 > 100 && b.x2 < 420 && b.y1 > 60 && b.y2 < 420, JSON.stringify(b));
    assert.equal(assessFace(r, gates, { single: true }).kind, 'ok');
    // A near-frontal portrait; rotating the photo by 12 degrees shows up as roll.
    const pose = r.primary!.pose;
    assert.ok(Math.abs(pose.roll) < 8 && Math.abs(pose.yaw) < 25, JSON.stringify(pose));
    const turned = await run(await sharp(fixture('grace_hopper.jpg')).rotate(12, { background: '#808080' }).jpeg().toBuffer());
    assert.ok(turned.ok && turned.primary);
    assert.ok(Math.abs(turned.primary.pose.roll - pose.roll - 12) < 4, JSON.stringify(turned.primary.pose));
  });

  it('runs an embedding net equal to the published fr_feature.onnx', async () => {
    // fr_feature_opt.onnx is derived offline (scripts/prepare-face-models.ts); the original stays committed and pinned.
    const dir = path.dirname(fileURLToPath(new URL('../../../models/face/fr_feature.onnx', import.meta.url)));
    const source = fs.readFileSync(path.join(dir, 'fr_feature.onnx'));
    const opts = { intraOpNumThreads: 1, graphOptimizationLevel: 'all' } as const;
    const reference = await ort.InferenceSession.create(source, opts);
    const engine = await ort.InferenceSession.create(loadVerifiedModels(dir, ['feature']).feature, opts);
    for (const p of ['grace_hopper.jpg', 'person-c.jpg']) {
      const r = await run(fixture(p));
      assert.ok(r.ok && r.primary);
      const input = new ort.Tensor('float32', featureInput(alignFace((await decodeImage(fixture(p))).img, r.primary.landmarks)), [1, 3, 112, 112]);
      const a = (await reference.run({ input })).output.data as Float32Array;
      const b = (await engine.run({ input })).output.data as Float32Array;
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
      assert.ok(diff < 1e-4, `${p}: largest difference ${diff}`);
      // The engine's own embedding is this output, L2-normalised.
      const norm = Math.hypot(...a);
      assert.ok(
        Math.abs(
          dot(
            r.primary.embedding,
            Float32Array.from(a, (v) => v / norm),
          ) - 1,
        ) < 1e-5,
      );
    }
  });

  it('finds three faces in a group photo and calls it several faces', async () => {
    const r = await run(fixture('group.jpg'));
    assert.ok(r.ok);
    assert.equal(r.faces.length, 3);
    assert.equal(assessFace(r, gates, { single: true }).kind, 'severalFaces');
    assert.equal(assessFace(r, gates, { single: false }).kind, 'ok');
  });

  it('scores genuine pairs (augmentations) far above impostor pairs', async () => {
    const people = ['grace_hopper.jpg', 'person-a.jpg', 'person-b.jpg', 'person-c.jpg'];
    const base = await Promise.all(people.map(async (p) => embedding(await run(fixture(p)))));
    let minGenuine = 1;
    for (const [i, p] of people.entries()) {
      if (i > 1) break; // two people's augmentations are enough to keep the suite short
      for (const [name, img] of Object.entries(await augment(fixture(p)))) {
        const c = dot(base[i], embedding(await run(img)));
        assert.ok(c > 0.8, `${p} ${name}: cosine ${c}`);
        minGenuine = Math.min(minGenuine, c);
      }
    }
    let maxImpostor = -1;
    for (let i = 0; i < base.length; i++) for (let j = i + 1; j < base.length; j++) maxImpostor = Math.max(maxImpostor, dot(base[i], base[j]));
    assert.ok(maxImpostor < 0.45, `impostor cosine ${maxImpostor}`);
    assert.ok(minGenuine > maxImpostor + 0.3);
    // Through the API's map: impostors stay under the search (0.85) and match (0.80) thresholds.
    assert.ok(cosineToSimilarity(maxImpostor) < 0.8);
    assert.ok(cosineToSimilarity(minGenuine) > 0.85);
  });

  it('finds no face in a landscape without people', async () => {
    const noise = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#6a8caf' } })
      .jpeg()
      .toBuffer();
    const r = await run(noise);
    assert.equal(assessFace(r, gates, { single: true }).kind, 'noFace');
  });

  it('refuses a face too small for the gate', async () => {
    const small = await sharp(fixture('grace_hopper.jpg')).resize(100).jpeg().toBuffer();
    const r = await run(small);
    assert.ok(r.ok && r.faces.length === 1);
    assert.equal(assessFace(r, gates, { single: true }).kind, 'tooSmall');
  });

  it('calls dark glasses and a mask occlusions, but not downcast eyes or a grayscale photo', async () => {
    const base = await run(fixture('grace_hopper.jpg'));
    assert.ok(base.ok && base.primary);
    const lm = base.primary.landmarks;
    const centre = (from: number): [number, number] => {
      let x = 0;
      let y = 0;
      for (let i = from; i < from + 6; i++) {
        x += lm[2 * i] / 6;
        y += lm[2 * i + 1] / 6;
      }
      return [x, y];
    };
    const covered = await run(await withSunglasses(fixture('grace_hopper.jpg'), { left: centre(36), right: centre(42) }));
    assert.equal(assessFace(covered, gates, { single: true }).kind, 'occluded');
    const masked = await run(await withMask(fixture('grace_hopper.jpg'), lm));
    const verdict = assessFace(masked, gates, { single: true });
    assert.equal(verdict.kind, 'occluded');
    assert.match((verdict as { reason: string }).reason, /mask/);
    // A grayscale photo has no skin colour anywhere: not called a mask.
    const gray = await run(await sharp(fixture('person-a.jpg')).grayscale().jpeg().toBuffer());
    assert.equal(assessFace(gray, gates, { single: true }).kind, 'ok');
    // person-b looks down (the eye model says "closed") without glasses: accepted.
    assert.equal(assessFace(await run(fixture('person-b.jpg')), gates, { single: true }).kind, 'ok');
  });

  it('recognises a photo of an ID card, not a portrait', async () => {
    const card = await run(await idCardPhoto(fixture('grace_hopper.jpg')), true);
    assert.equal(looksLikeIdCard(card), true);
    for (const p of ['grace_hopper.jpg', 'person-a.jpg', 'person-c.jpg']) assert.equal(looksLikeIdCard(await run(fixture(p), true)), false, p);
  });

  it('reports undecodable input instead of throwing', async () => {
    const jpeg = fixture('grace_hopper.jpg');
    assert.equal((await run(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).ok, false);
    assert.equal((await run(Buffer.from('definitely not an image'))).ok, false);
    assert.equal((await run(Buffer.alloc(0))).ok, false);
  });
});
