import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { ARCFACE_112, umeyama } from '../../src/face/engine/align.js';
import { decodeDetections, nms } from '../../src/face/engine/detect.js';
import { assessFace, looksLikeIdCard } from '../../src/face/engine/index.js';
import { FACE_MODELS, loadVerifiedModels, ModelIntegrityError } from '../../src/face/engine/models.js';
import { cosineToSimilarity, dot, similarityToCosine } from '../../src/face/engine/similarity.js';
import { analyze, type AnalyzeResult } from '../../src/face/engine/worker.js';
import { augment, fixture, idCardPhoto, withMask, withSunglasses } from './helpers.js';

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
    const src = ARCFACE_112.map(([x, y]) => [scale * (Math.cos(angle) * x - Math.sin(angle) * y) + 40, scale * (Math.sin(angle) * x + Math.cos(angle) * y) - 12] as [number, number]);
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
    assert.equal(nms([{ x1: 0, y1: 0, x2: 10, y2: 10, score: 1 }, { x1: 20, y1: 20, x2: 30, y2: 30, score: 0.5 }], 0.4).length, 2);
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
    const noise = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#6a8caf' } }).jpeg().toBuffer();
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
