import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { loadFaceConfig } from '../../../src/face/config.js';
import { assessFace } from '../../../src/face/engine/index.js';
import { dot } from '../../../src/face/engine/similarity.js';
import { competingFaces, implausibleGeometry, orderBySubject, subjectScore, type FaceCandidate } from '../../../src/face/engine/subject.js';
import { analyze, detectionTiles, MIN_FACE_QUALITY, type AnalyzeResult } from '../../../src/face/engine/worker.js';
import { boxInUpload, sameFace } from '../../../src/face/evaluation.js';
import { seededRandom } from '../../../src/platform/random.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { fixture, placements, type PlacedBox } from '../../../fixtures/faces/photos.js';

const gates = { minFacePx: 40, secondFaceRatio: 0.25, minBlurVariance: 0, secondFaceSharpness: 0.3 };
const run = (image: Buffer) => analyze({ image, detectThreshold: 0.7, checkCard: false });

/** 68 landmarks of an upright frontal face in the box (0,0)-(100,120): eyes at y 50, nose tip at y 75, mouth at y 95. */
function frontal(): number[] {
  const lm = new Array<number>(136);
  for (let i = 0; i < 68; i++) [lm[2 * i], lm[2 * i + 1]] = [50, 65];
  const set = (idx: number[], x: number, y: number) => idx.forEach((i) => ([lm[2 * i], lm[2 * i + 1]] = [x, y]));
  set([36, 37, 38, 39, 40, 41], 32, 50);
  set([42, 43, 44, 45, 46, 47], 68, 50);
  set([30], 50, 75);
  set([48], 38, 95);
  set([54], 62, 95);
  set([51], 50, 92);
  set([57], 50, 99);
  return lm;
}
const box = { x1: 0, y1: 0, x2: 100, y2: 120, score: 0.99 };

function candidate(x1: number, y1: number, size: number, sharpness: number, score = 0.99): FaceCandidate {
  return { x1, y1, x2: x1 + size, y2: y1 + size * 1.3, score, landmarks: [], sharpness };
}

describe('face rules (pure)', () => {
  it('accepts a frontal face and names what is wrong with non-faces', () => {
    assert.equal(implausibleGeometry(box, frontal()), undefined);
    // Mouth above the nose (points folded by the landmark net on a texture).
    const folded = frontal();
    for (const i of [48, 51, 54, 57]) folded[2 * i + 1] = 60;
    assert.match(implausibleGeometry(box, folded)!, /not in order/);
    // Eyes squeezed together for the box's width.
    const squeezed = frontal();
    for (let i = 36; i < 42; i++) squeezed[2 * i] = 46;
    for (let i = 42; i < 48; i++) squeezed[2 * i] = 54;
    assert.match(implausibleGeometry(box, squeezed)!, /eye distance/);
    // Nose far outside the eyes.
    const nose = frontal();
    nose[60] = 95;
    assert.match(implausibleGeometry(box, nose)!, /nose/);
    // The same face described in a box far to its right.
    assert.match(implausibleGeometry({ ...box, x1: 60, x2: 160 }, frontal())!, /eye distance|off the box/);
    // An eye line at 80 degrees.
    const steep = frontal();
    for (let i = 42; i < 48; i++) [steep[2 * i], steep[2 * i + 1]] = [36, 86];
    assert.match(implausibleGeometry(box, steep)!, /tilted/);
  });

  it('picks the subject by size, centrality, confidence and focus, not size alone', () => {
    const W = 1000;
    const H = 800;
    const centred = candidate(450, 330, 100, 900);
    const corner = candidate(0, 0, 115, 900);
    // A little larger but in the corner: the centred face is the subject.
    assert.ok(subjectScore(centred, W, H, { centreWeight: 0.5 }) > subjectScore(corner, W, H, { centreWeight: 0.5 }));
    assert.equal(orderBySubject([corner, centred], W, H, { centreWeight: 0.5, secondFaceSharpness: 0.3 })[0], centred);
    // With no weight on centrality, size decides.
    assert.equal(orderBySubject([centred, corner], W, H, { centreWeight: 0, secondFaceSharpness: 0.3 })[0], corner);
    // Twice the size wins even from the corner.
    const big = candidate(0, 0, 220, 900);
    assert.equal(orderBySubject([centred, big], W, H, { centreWeight: 0.5, secondFaceSharpness: 0.3 })[0], big);
    // A less sure detection of the same size loses.
    const unsure = candidate(450, 330, 100, 900, 0.72);
    assert.equal(orderBySubject([unsure, { ...centred, x1: 430, x2: 530 }], W, H, { centreWeight: 0.5, secondFaceSharpness: 0.3 })[0].score, 0.99);
    // A big blurred face behind a sharp one is never the subject.
    const blurredBig = candidate(400, 200, 300, 40);
    assert.equal(orderBySubject([blurredBig, corner], W, H, { centreWeight: 0.5, secondFaceSharpness: 0.3 })[0], corner);
  });

  it('counts only comparable, sharp faces as "several faces"', () => {
    const subject = candidate(400, 300, 200, 1000);
    const small = candidate(0, 0, 80, 1000); // 16% of the area
    const blurred = candidate(700, 0, 200, 100); // as big, a tenth as sharp
    const second = candidate(700, 0, 150, 800); // 56% of the area, sharp
    assert.deepEqual(competingFaces(subject, [small, blurred], gates), []);
    assert.deepEqual(competingFaces(subject, [small, blurred, second], gates), [second]);
    assert.deepEqual(competingFaces(subject, [small], { ...gates, secondFaceRatio: 0.1 }), [small]);
  });

  it('reads the subject and "several faces" thresholds from settings', () => {
    const defaults = loadFaceConfig({});
    assert.deepEqual([defaults.subjectCentreWeight, defaults.secondFaceRatio, defaults.secondFaceSharpness], [0.5, 0.25, 0.3]);
    const set = loadFaceConfig({ SAOLA_FACE_SUBJECT_CENTRE_WEIGHT: '0.2', SAOLA_FACE_SECOND_FACE_SHARPNESS: '0.6' });
    assert.deepEqual([set.subjectCentreWeight, set.secondFaceSharpness], [0.2, 0.6]);
    assert.throws(() => loadFaceConfig({ SAOLA_FACE_SUBJECT_CENTRE_WEIGHT: '1.5' }), /SAOLA_FACE_SUBJECT_CENTRE_WEIGHT/);
    assert.throws(() => loadFaceConfig({ SAOLA_FACE_SECOND_FACE_SHARPNESS: 'sharp' }), /SAOLA_FACE_SECOND_FACE_SHARPNESS/);
  });

  it('tiles a large working image with overlap and leaves a small one whole', () => {
    assert.equal(detectionTiles(640, 480).length, 1);
    const tiles = detectionTiles(1600, 1066);
    assert.ok(tiles.length >= 4);
    for (const t of tiles) assert.ok(t.x >= 0 && t.y >= 0 && t.x + t.w <= 1600 && t.y + t.h <= 1066);
    // Every point is inside some tile, and neighbours overlap.
    for (const [x, y] of [
      [0, 0],
      [1599, 1065],
      [800, 533],
      [799, 599],
    ])
      assert.ok(
        tiles.some((t) => x >= t.x && x < t.x + t.w && y >= t.y && y < t.y + t.h),
        `${x},${y}`,
      );
    assert.ok(tiles[1].x < tiles[0].x + tiles[0].w);
  });
});

/** The subject of a plain portrait, in upload pixels, and its embedding. */
async function subjectOf(image: Buffer): Promise<{ box: PlacedBox; embedding: Float32Array }> {
  const r = await run(image);
  assert.ok(r.ok && r.primary);
  return { box: boxInUpload(r, r.faces[0]), embedding: r.primary.embedding };
}

function compared(r: AnalyzeResult): PlacedBox {
  assert.ok(r.ok && r.primary, 'a face was compared');
  return boxInUpload(r, r.faces[0]);
}

describe('face rules and subject on real photos', () => {
  it("compares the portrait's face in every placement, with the same identity", async () => {
    const portrait = fixture('grace_hopper.jpg');
    const base = await subjectOf(portrait);
    const found = await placements(portrait, base.box, fixture('group.jpg'));
    assert.equal(found.length, 7);
    for (const p of found) {
      const r = await run(p.image);
      assert.ok(sameFace(compared(r), p.face), `${p.name}: compared ${JSON.stringify(compared(r))}, expected ${JSON.stringify(p.face)}`);
      assert.ok(r.ok && r.primary && dot(r.primary.embedding, base.embedding) > 0.6, `${p.name}: same person`);
      assert.equal(assessFace(r, gates, { single: true }).kind, 'ok', p.name);
      if (p.name === 'turned 90 without EXIF') assert.equal(r.ok && r.rotation, 270);
      if (p.name === 'turned 180 without EXIF') assert.equal(r.ok && r.rotation, 180);
      if (p.name.includes('with EXIF')) assert.equal(r.ok && r.rotation, 0, 'EXIF turns it upright before detection');
    }
  });

  it('finds a face too small for the whole-photo pass in the tiled second pass', async () => {
    // person-a's face about 100 px wide on a 3000 px scene: ~55 px of the working image, ~11 px for the whole-photo pass.
    const face = await sharp(fixture('person-a.jpg')).resize(280).toBuffer();
    const scene = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#8796a5' } })
      .composite([{ input: face, left: 2100, top: 1500 }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const r = await run(scene);
    assert.ok(r.ok && r.primary, 'found');
    assert.equal(r.tiled, true);
    const b = boxInUpload(r, r.faces[0]);
    assert.ok(b.x1 > 2100 && b.x2 < 2380 && b.y1 > 1500 && b.y2 < 1800, JSON.stringify(b));
    const base = await subjectOf(fixture('person-a.jpg'));
    assert.ok(dot(r.primary.embedding, base.embedding) > 0.5);
  });

  it('a sharp subject with a larger blurred face behind: the subject is compared and it is not "several faces"', async () => {
    // person-c in front of an enlarged, blurred copy of group.jpg: the background faces are as big as the subject's.
    const bg = await sharp(fixture('group.jpg')).resize(1400, 1000, { fit: 'cover' }).blur(10).toBuffer();
    const person = await sharp(fixture('person-c.jpg')).resize(420).toBuffer();
    const composite = await sharp(bg)
      .composite([{ input: person, left: 900, top: 1000 - (await sharp(person).metadata()).height! }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const r = await run(composite);
    assert.ok(r.ok && r.primary);
    assert.ok(r.faces.length >= 2, `the blurred faces are still faces (${r.faces.length})`);
    assert.ok(r.faces[0].sharpness > 3 * r.faces[1].sharpness);
    const b = compared(r);
    assert.ok(b.x1 >= 880, `compared the person in front: ${JSON.stringify(b)}`);
    assert.equal(assessFace(r, gates, { single: true }).kind, 'ok');
    // The same photo with a sharp background is unclear: several faces.
    const sharpBg = await sharp(fixture('group.jpg')).resize(1400, 1000, { fit: 'cover' }).toBuffer();
    const crowded = await run(
      await sharp(sharpBg)
        .composite([{ input: person, left: 900, top: 1000 - (await sharp(person).metadata()).height! }])
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
    assert.equal(assessFace(crowded, gates, { single: true }).kind, 'severalFaces');
  });

  it('drops detections on textures: by landmark geometry, and by the embedding net', async () => {
    const texture = async (seed: number, shapes: (rnd: () => number) => string, blur: number) => {
      const rnd = seededRandom(seed);
      const img = sharp(Buffer.from(`<svg width="960" height="720"><rect width="960" height="720" fill="#c8b49a"/>${shapes(rnd)}</svg>`));
      return (blur ? img.blur(blur) : img).jpeg({ quality: 85 }).toBuffer();
    };
    // Coloured blobs: the detector fires, the landmarks are not a face's.
    const blobs = (rnd: () => number) =>
      Array.from(
        { length: 400 },
        () =>
          `<ellipse cx="${rnd() * 960}" cy="${rnd() * 720}" rx="${4 + rnd() * 30}" ry="${4 + rnd() * 20}" fill="rgb(${Math.floor(rnd() * 255)},${Math.floor(rnd() * 200)},${Math.floor(rnd() * 160)})"/>`,
      ).join('');
    // Pairs of dots over a bar (a drawn "face" pattern): passes the geometry, but the embedding net does not read a face.
    const dots = (rnd: () => number) =>
      Array.from({ length: 200 }, () => {
        const [x, y, s] = [rnd() * 960, rnd() * 720, 8 + rnd() * 40];
        return `<circle cx="${x}" cy="${y}" r="${s / 6}" fill="#222"/><circle cx="${x + s}" cy="${y}" r="${s / 6}" fill="#222"/><rect x="${x}" y="${y + s}" width="${s}" height="${s / 8}" fill="#422"/>`;
      }).join('');
    const a = await run(await texture(2, blobs, 3));
    assert.ok(a.ok);
    assert.equal(a.faces.length, 0);
    assert.ok(
      a.rejected.some((x) => /eye distance|order|nose|off the box|tilted/.test(x.reason)),
      JSON.stringify(a.rejected),
    );
    const b = await run(await texture(6, dots, 0));
    assert.ok(b.ok);
    assert.equal(b.faces.length, 0);
    assert.ok(
      b.rejected.some((x) => /embedding length/.test(x.reason)),
      JSON.stringify(b.rejected),
    );
    assert.equal(assessFace(b, gates, { single: true }).kind, 'noFace');
    // Real faces read well above the cut.
    const real = await run(fixture('person-c.jpg'));
    assert.ok(real.ok && real.primary && real.primary.quality > MIN_FACE_QUALITY + 0.5);
  });
});

describe('the subject in face match and face search (HTTP)', () => {
  let app: TestApp;
  let composite: Buffer;
  const post = async (path: string, parts: [string, string | Buffer][]) => {
    const form = new FormData();
    for (const [k, v] of parts) {
      if (typeof v === 'string') form.append(k, v);
      else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'p.jpg');
    }
    return (await (await fetch(app.url + path, { method: 'POST', headers: { api_key: app.apiKey }, body: form })).json()) as any;
  };
  before(async () => {
    app = await startTestApp();
    // grace_hopper next to a blurred crowd made of group.jpg (the red-carpet case).
    const portrait = fixture('grace_hopper.jpg');
    const base = await subjectOf(portrait);
    composite = (await placements(portrait, base.box, fixture('group.jpg'))).find((p) => p.name === 'next to a blurred crowd')!.image;
  });
  after(async () => {
    await app?.close();
  });

  it('face match compares the person, not a background face', async () => {
    const same = await post('/dmp/checkface/v1/', [
      ['file[]', composite],
      ['file[]', fixture('grace_hopper.jpg')],
    ]);
    assert.equal(same.code, '200');
    assert.equal(same.data.isMatch, true, JSON.stringify(same));
    const other = await post('/dmp/checkface/v1/', [
      ['file[]', composite],
      ['file[]', fixture('person-c.jpg')],
    ]);
    assert.equal(other.data.isMatch, false, JSON.stringify(other));
  });

  it('face search adds the person from the crowd photo and finds them with it', async () => {
    const add = await post('/dmp/facesearch/v2/add', [
      ['collection', 'subject'],
      ['id', 'grace'],
      ['file', composite],
    ]);
    assert.deepEqual(add, { code: '200', data: 'Add photo success' });
    await post('/dmp/facesearch/v2/add', [
      ['collection', 'subject'],
      ['id', 'c'],
      ['file', fixture('person-c.jpg')],
    ]);
    const found = await post('/dmp/facesearch/v2/search', [
      ['collection', 'subject'],
      ['file', fixture('grace_hopper.jpg')],
    ]);
    assert.equal(found.data.id, 'grace', JSON.stringify(found));
    const query = await post('/dmp/facesearch/v2/search', [
      ['collection', 'subject'],
      ['file', composite],
    ]);
    assert.equal(query.data.id, 'grace', JSON.stringify(query));
    // A photo where two sharp people are equally present is still refused.
    const couple = await post('/dmp/facesearch/v2/add', [
      ['collection', 'subject'],
      ['id', 'x'],
      ['file', fixture('group.jpg')],
    ]);
    assert.deepEqual(couple, { code: '400', data: 'Multiple faces detected' });
  });
});
