import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { analyze } from '../../../src/face/engine/worker.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { fixture, withMask, withSunglasses } from '../../../fixtures/faces/photos.js';
import { animate, crossFade, onScreen, printed, scene, turned, type Motion, type VideoOptions } from '../../../fixtures/videos/liveness.js';

type Part = [field: string, value: Buffer, filename: string];

async function post(app: TestApp, path: string, parts: Part[], apiKey: string | null = app.apiKey) {
  const form = new FormData();
  for (const [field, value, filename] of parts) form.append(field, new Blob([new Uint8Array(value)]), filename);
  const headers: Record<string, string> = apiKey ? { api_key: apiKey } : {};
  const res = await fetch(app.url + path, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

const V2 = '/dmp/checklive/v2';
const V3 = '/dmp/liveness/v3';
// Small frames keep the suite fast; v3 then warns "below HD", which one test checks. Each distinct video is
// made once (`video` remembers them) and the server analyses each once (its analysis cache): v2 and v3 of the
// same video, and the same frames in another container, share one analysis.
const O: VideoOptions = { width: 640, height: 360, fps: 25, seconds: 5.5 };
const LOW_RESOLUTION = 'Resolution of video is too low. Please upload video with at least HD resolution to ensure accuracy';
const NA = 'N/A';

describe('liveness over HTTP with generated videos', () => {
  let app: TestApp;
  const grace = fixture('grace_hopper.jpg');
  const made = new Map<string, Promise<Buffer>>();
  const video = (motion: Motion, opts: Partial<VideoOptions> & { photo?: Buffer; photoName?: string; faceShare?: number; wide?: boolean } = {}) => {
    const { photo, photoName, ...rest } = opts;
    // A photo other than grace's is named by the caller, so the same video is made once.
    const key = photo && !photoName ? undefined : JSON.stringify([motion, photoName ?? '', rest]);
    const known = key ? made.get(key) : undefined;
    if (known) return known;
    const o = { ...O, ...rest };
    const v = scene(photo ?? grace, { width: o.width, height: o.height, faceShare: opts.faceShare, wide: opts.wide }).then((sc) => animate(sc, motion, o));
    if (key) made.set(key, v);
    return v;
  };
  const v2 = (v: Buffer, name = 'selfie.mp4', extra: Part[] = []) => post(app, V2, [['video', v, name], ...extra]);
  const v3 = (v: Buffer, name = 'selfie.mp4', extra: Part[] = []) => post(app, V3, [['video', v, name], ...extra]);
  let shaken: Buffer;
  // The input checks count the server's temp files in os.tmpdir(): a folder of this file's own keeps
  // those of test files running beside it out of the count.
  const tmpdir = { saved: process.env.TMPDIR, own: '' };

  before(async () => {
    tmpdir.own = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-liveness-test-'));
    process.env.TMPDIR = tmpdir.own;
    // Generous time limits for decoding and for a pool task: the suite runs files side by side on few cores
    // (the limits themselves are tested in liveness-units and the platform's pool suite).
    app = await startTestApp({
      // Room for every distinct video of the file (about 30), so a video used again is never analysed twice.
      env: {
        SAOLA_LIVENESS_MAX_VIDEO_BYTES: String(3 * 1024 * 1024),
        SAOLA_LIVENESS_DECODE_TIMEOUT_MS: '120000',
        SAOLA_POOL_TIMEOUT_MS: '600000',
        SAOLA_LIVENESS_ANALYSIS_CACHE: '64',
      },
    });
    shaken = await video('shake');
  });
  after(async () => {
    await app?.close();
    if (tmpdir.saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir.saved;
    fs.rmSync(tmpdir.own, { recursive: true, force: true });
  });

  it('a still image is 413 in both versions, v2 with only code, message, is_live and need_to_review', async () => {
    const still = await video('still');
    let r = await v2(still);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { code: '413', message: 'request successful.', is_live: false, need_to_review: false });
    r = await v3(still);
    assert.equal(r.body.code, '413');
    assert.equal(r.body.liveness.code, '413');
    assert.equal(r.body.liveness.is_live, 'false');
    assert.equal(r.body.message, 'Video may seem like image');
    assert.equal(r.body.face_match.code, NA);
  });

  it('a photo moved in front of the camera (pan, zoom, tilt, shake), printed or on a screen, is never live without review', async () => {
    const cases: [string, Buffer][] = [
      ['shake', shaken],
      ['pan', await video('pan')],
      ['zoom', await video('zoom')],
      ['tilt', await video('tilt')],
      ['print', await video('shake', { photo: await printed(grace), faceShare: 0.95 })],
      ['screen', await video('pan', { photo: await onScreen(grace), faceShare: 0.95 })],
    ];
    for (const [name, v] of cases) {
      const r3 = await v3(v);
      const { liveness } = r3.body;
      // The analysis succeeded (liveness 200); the top-level code says 301 when the face is not live.
      assert.equal(liveness.code, '200', `${name}: ${JSON.stringify(r3.body)}`);
      assert.equal(r3.body.code, liveness.is_live === 'true' ? '200' : '301');
      assert.ok(!(liveness.is_live === 'true' && liveness.need_to_review === 'false'), `${name} answered live: ${JSON.stringify(liveness)}`);
      const spoof = Number(liveness.spoof_prob);
      assert.ok(spoof >= 0 && spoof <= 1, liveness.spoof_prob);
      assert.equal(liveness.is_deepfake, NA);
      assert.equal(liveness.deepfake_prob, NA);
      // The guide's text first; checks passed near their limit follow it.
      assert.ok(liveness.warning.startsWith(LOW_RESOLUTION), liveness.warning);
      const r2 = await v2(v);
      assert.equal(r2.body.code, '200');
      assert.ok(!(r2.body.is_live === true && r2.body.need_to_review === false), `${name} answered live (v2)`);
      // v2's prob is the live probability, v3's spoof_prob its complement.
      assert.ok(Math.abs(Number(r2.body.prob) - (1 - spoof)) < 1e-3, `${r2.body.prob} vs ${spoof}`);
      assert.equal(r2.body.deepfake_prob, NA);
      assert.equal('is_deepfake' in r2.body, false);
    }
  });

  it('two faces: 408 with a data string in v2', async () => {
    const pair = await sharp({ create: { width: 1300, height: 700, channels: 3, background: '#6b7a88' } })
      .composite([
        { input: await sharp(grace).resize({ height: 640 }).toBuffer(), left: 40, top: 30 },
        { input: await sharp(fixture('person-a.jpg')).resize({ height: 640 }).toBuffer(), left: 700, top: 30 },
      ])
      .jpeg()
      .toBuffer();
    const v = await video('shake', { photo: pair });
    const r = await v2(v);
    assert.equal(r.body.code, '408');
    assert.equal(typeof r.body.data, 'string');
    assert.equal((await v3(v)).body.liveness.code, '408');
  });

  it('a small face is 411, a blurred one 412', async () => {
    let r = await v3(await video('shake', { faceShare: 0.3 }));
    assert.equal(r.body.liveness.code, '411');
    r = await v2(await video('shake', { filter: 'boxblur=4' }));
    assert.deepEqual(r.body, { code: '412', message: 'request successful.', is_live: false, need_to_review: false });
  });

  it('a face leaving the frame is 423 in v3 and 410 in v2; no face at all is 410', async () => {
    const v = await video('leave', { wide: true });
    assert.equal((await v3(v)).body.liveness.code, '423');
    const r = await v2(v);
    assert.equal(r.body.code, '410');
    assert.equal(typeof r.body.data, 'string');
    const empty = await animate(
      await sharp({ create: { width: 900, height: 600, channels: 3, background: '#8a7a6b' } })
        .png()
        .toBuffer(),
      'shake',
      O,
    );
    assert.equal((await v3(empty)).body.liveness.code, '410');
  });

  it('v3: a turned head only is 422, a dark video or dark glasses 406 (v2 checks neither)', async () => {
    const found = await analyze({ image: grace, detectThreshold: 0.7, checkCard: false });
    assert.ok(found.ok && found.primary);
    // Turned 50 degrees about the head's own vertical axis (the photo is analysed at its own size: landmarks are its pixels).
    const profile = await video('shake', { photo: await turned(grace, found.primary.landmarks, 50) });
    assert.equal((await v3(profile)).body.liveness.code, '422');
    assert.equal((await v2(profile)).body.code, '200');
    // Dark: the face's median brightness below 30 (0-255).
    const dark = await video('shake', { filter: 'eq=brightness=-0.5' });
    assert.equal((await v3(dark)).body.liveness.code, '406');
    // A hygiene mask over mouth and chin (the spec's "cover").
    const mask = await video('shake', { photo: await withMask(grace, found.primary.landmarks), photoName: 'grace-mask' });
    const masked = await v3(mask);
    assert.equal(masked.body.liveness.code, '406', JSON.stringify(masked.body));
    // Covered: dark glasses over the eyes.
    const lm = found.primary.landmarks;
    const eye = (from: number): [number, number] => [0, 1].map((k) => [0, 1, 2, 3, 4, 5].reduce((sum, i) => sum + lm[2 * (from + i) + k] / 6, 0)) as [number, number];
    const shades = await video('shake', { photo: await withSunglasses(grace, { left: eye(36), right: eye(42) }) });
    const r = await v3(shades);
    assert.equal(r.body.liveness.code, '406', JSON.stringify(r.body));
    assert.match(r.body.liveness.message, /quality/);
  });

  it('v3 on a tight, tilted crop (person-a): turned 50 degrees about its own axis is 422, drawn dark glasses 406', async () => {
    const photo = fixture('person-a.jpg');
    const found = await analyze({ image: photo, detectThreshold: 0.7, checkCard: false });
    assert.ok(found.ok && found.primary);
    // The photo is smaller than the engine's working size: landmarks are its pixels.
    assert.equal(found.scale, 1);
    const lm = found.primary.landmarks;
    // Turned further the way the face already looks (its head is tilted about 45 degrees: the turn is about the face's axis, not the image's).
    const profile = await video('shake', { photo: await turned(photo, lm, (found.primary.pose.yaw >= 0 ? 1 : -1) * 50) });
    let r = await v3(profile);
    assert.equal(r.body.liveness.code, '422', JSON.stringify(r.body));
    const eye = (from: number): [number, number] => [0, 1].map((k) => [0, 1, 2, 3, 4, 5].reduce((sum, i) => sum + lm[2 * (from + i) + k] / 6, 0)) as [number, number];
    // The eye model calls only one of these lenses "closed" in most frames; the eye patches are dark against the cheeks in all.
    r = await v3(await video('shake', { photo: await withSunglasses(photo, { left: eye(36), right: eye(42) }) }));
    assert.equal(r.body.liveness.code, '406', JSON.stringify(r.body));
    // The same photo without glasses, straight, passes both checks (so neither rule fires on the crop itself).
    r = await v3(await video('shake', { photo }));
    assert.equal(r.body.liveness.code, '200', JSON.stringify(r.body));
  });

  it('input checks: missing video, wrong extension or container, corrupted stream, duration and frame rate (409)', async () => {
    const leftovers = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('saola-live-')).length;
    const before = leftovers();
    let r = await post(app, V2, [['cmnd', grace, 'id.jpg']]);
    assert.equal(r.body.code, '409');
    assert.equal(typeof r.body.data, 'string');
    r = await v3(shaken, 'selfie.txt');
    assert.equal(r.body.liveness.code, '409');
    assert.match(r.body.liveness.message, /extension/);
    // A container outside the list, even under an accepted name.
    const flv = await video('shake', { format: 'flv' });
    assert.equal((await v2(flv, 'selfie.mp4')).body.code, '409');
    // Not a video at all, and a stream cut in the middle.
    assert.equal((await v3(grace, 'selfie.mp4')).body.liveness.code, '409');
    assert.equal((await v2(shaken.subarray(0, Math.floor(shaken.length / 3)))).body.code, '409');
    assert.equal((await v3(Buffer.alloc(0))).body.liveness.code, '409');
    // 3 s is too short for both; 8 s is fine for v2 (5-10 s) but too long for v3 (5-6 s).
    const short = await video('shake', { seconds: 3 });
    assert.equal((await v2(short)).body.code, '409');
    assert.equal((await v3(short)).body.liveness.code, '409');
    const long = await video('shake', { seconds: 8, fps: 10 });
    assert.equal((await v2(long)).body.code, '200');
    // v3 needs 25 fps; v2 has no frame-rate rule.
    const slow = await video('shake', { fps: 12 });
    r = await v3(slow);
    assert.equal(r.body.liveness.code, '409');
    assert.match(r.body.liveness.message, /fps/);
    assert.equal((await v2(slow)).body.code, '200');
    assert.equal((await v3(long)).body.liveness.code, '409');
    // Every upload went through a private temp folder, removed whatever the outcome.
    assert.equal(leftovers(), before);
  });

  it('other containers are read (mkv, webm, mov, avi)', async () => {
    for (const format of ['mkv', 'webm', 'mov', 'avi']) {
      const v = await video('shake', { format });
      const r = await v3(v, `selfie.${format}`);
      assert.equal(r.body.liveness.code, '200', `${format}: ${JSON.stringify(r.body)}`);
    }
  });

  it('cmnd is compared with the best frame: same person matches, another does not, no face is 407', async () => {
    const proxy = await crossFade([grace, await sharp(grace).rotate(6, { background: '#6b7a88' }).toBuffer()], { ...O, width: 1280, height: 720 });
    let r = await v3(proxy, 'selfie.mp4', [['cmnd', grace, 'id.jpg']]);
    assert.equal(r.body.liveness.code, '200', JSON.stringify(r.body));
    assert.equal(r.body.code, r.body.liveness.is_live === 'true' ? '200' : '301');
    assert.doesNotMatch(r.body.liveness.warning, /Resolution/, 'a 720p video is not warned about its resolution');
    assert.equal(r.body.face_match.code, '200');
    assert.equal(r.body.face_match.message, 'face matching successful');
    assert.equal(r.body.face_match.isMatch, 'true');
    assert.ok(Number(r.body.face_match.similarity) >= 80, r.body.face_match.similarity);
    // The same video again (v2 after v3): one analysis, served from the server's cache; the answer is still this request's.
    const cache = async () => ((await (await fetch(`${app.url}/readyz`)).json()) as any).checks.liveness.analysisCache;
    const hits = (await cache()).hits;
    r = await v2(proxy, 'selfie.mp4', [['cmnd', fixture('person-c.jpg'), 'id.jpg']]);
    assert.equal((await cache()).hits, hits + 1);
    assert.equal(r.body.code, '200');
    assert.equal(r.body.face_match.isMatch, false);
    assert.equal(typeof r.body.face_match.similarity, 'number');
    assert.ok(r.body.face_match.similarity < 80);
    const blank = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#ddd' } })
      .jpeg()
      .toBuffer();
    r = await v2(shaken, 'selfie.mp4', [['cmnd', blank, 'id.jpg']]);
    assert.deepEqual(r.body.face_match_error, { code: '407', data: 'No faces detected' });
    assert.equal('face_match' in r.body, false);
    r = await v3(shaken, 'selfie.mp4', [['cmnd', blank, 'id.jpg']]);
    // A face that is not live is the outcome first (301); else the document's missing face (407).
    assert.equal(r.body.code, r.body.liveness.is_live === 'true' ? '407' : '301');
    assert.equal(r.body.face_match.code, '407');
    assert.equal(r.body.face_match.message, 'No faces detected in document');
    assert.equal(r.body.face_match.isMatch, NA);
    assert.equal(r.body.liveness.code, '200');
  });

  it('needs an api key; every application gets its own answer; too large an upload is 409 naming the limit, never 413 (a still image)', async () => {
    let r = await post(app, V3, [['video', shaken, 'selfie.mp4']], null);
    assert.equal(r.status, 401);
    assert.equal(r.body.code, '401');
    r = await post(app, V2, [['video', shaken, 'selfie.mp4']], 'not-a-key');
    assert.equal(r.status, 401);
    const other = await app.newTenant('other');
    r = await post(app, V2, [['video', shaken, 'selfie.mp4']], other.apiKey);
    assert.equal(r.body.code, '200');
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 7);
    r = await v3(big);
    assert.equal(r.status, 200);
    assert.equal(r.body.code, '409');
    assert.equal(r.body.liveness.code, '409');
    assert.match(r.body.liveness.message, /at most 3 MB/);
    r = await post(app, V2, [['video', big, 'selfie.mp4']], app.apiKey);
    assert.equal(r.status, 200);
    assert.equal(r.body.code, '409');
    assert.match(r.body.data, /at most 3 MB/);
  });

  it("the guide's sample requests: video + cmnd and selfies + cmnd with the api-key header, and ?v2_format=1", async () => {
    const send = async (path: string, parts: Part[]) => {
      const form = new FormData();
      for (const [field, value, filename] of parts) form.append(field, new Blob([new Uint8Array(value)]), filename);
      const res = await fetch(app.url + path, { method: 'POST', headers: { 'api-key': app.apiKey }, body: form });
      return { status: res.status, body: (await res.json()) as any };
    };
    const fields = ['code', 'message', 'is_live', 'spoof_prob', 'need_to_review', 'is_deepfake', 'deepfake_prob', 'warning'];
    let r = await send(V3, [
      ['video', shaken, 'video.mp4'],
      ['cmnd', grace, 'face.jpg'],
    ]);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body.liveness), fields);
    assert.deepEqual(Object.keys(r.body.face_match), ['code', 'message', 'isMatch', 'similarity', 'warning']);
    assert.equal(r.body.liveness.message, 'liveness check successful');
    // A selfie image instead of the video: the same shape, no motion rules (a single image is not "a still image").
    const selfie = await sharp(grace).resize({ height: 1280, width: 960, fit: 'contain', background: '#6b7a88' }).jpeg().toBuffer();
    r = await send(V3, [
      ['selfies', selfie, 'selfie.jpg'],
      ['cmnd', grace, 'face.jpg'],
    ]);
    assert.equal(r.body.liveness.code, '200', JSON.stringify(r.body));
    assert.equal(r.body.liveness.warning, '');
    assert.equal(r.body.face_match.code, '200');
    assert.equal(r.body.face_match.isMatch, 'true');
    assert.ok(['200', '301'].includes(r.body.code));
    assert.equal(r.body.message, r.body.code === '200' ? 'request successful' : 'Face in video is spoof');
    // A small selfie is warned about in the guide's words; one that is not an image is the guide's 409.
    r = await send(V3, [['selfies', await sharp(selfie).resize({ height: 640 }).jpeg().toBuffer(), 'selfie.jpg']]);
    assert.equal(r.body.liveness.warning, 'Resolution of image is too low. Please upload image with at least HD resolution to ensure accuracy');
    r = await send(V3, [['selfies', Buffer.from('not an image'), 'selfie.jpg']]);
    assert.deepEqual([r.body.code, r.body.message, r.body.face_match.code], ['409', 'Invalid upload image', '409']);
    r = await send(V3, [
      ['selfies', selfie, 'selfie.jpg'],
      ['video', shaken, 'video.mp4'],
    ]);
    assert.equal(r.body.code, '409');
    // A still image in the guide's words.
    r = await send(V3, [['video', await video('still'), 'video.mp4']]);
    assert.deepEqual([r.body.code, r.body.message, r.body.liveness.is_live], ['413', 'Video may seem like image', 'false']);
    // v2's shape, v3's rules: 12 fps is refused (v3), answered as v2 would.
    r = await send(`${V3}?v2_format=1`, [['video', await video('shake', { fps: 12 }), 'video.mp4']]);
    assert.equal(r.body.code, '409');
    assert.equal(r.body.message, 'request successful.');
    assert.match(r.body.data, /fps/);
    assert.equal('liveness' in r.body, false);
    r = await send(`${V3}?v2_format=1`, [['video', shaken, 'video.mp4']]);
    assert.equal(typeof r.body.is_live, 'boolean');
    assert.equal(typeof r.body.prob, 'string');
  });

  it('both endpoints are in the OpenAPI document with their form', async () => {
    const doc = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as any;
    for (const p of [V2, V3]) {
      const op = doc.paths[p]?.post ?? doc.paths[`${p}/`]?.post;
      assert.ok(op, `${p} documented`);
      assert.ok(op.requestBody.content['multipart/form-data'].schema.properties.video);
    }
  });
});
