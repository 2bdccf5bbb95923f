import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LivenessErrors } from '../../src/face/errors.js';
import { antispoofCrop, antispoofTensor, liveProbability } from '../../src/face/liveness/antispoof.js';
import { countBlinks, decide } from '../../src/face/liveness/fusion.js';
import { fitHomography, homographyResidual, nonRigidity } from '../../src/face/liveness/motion.js';
import { renderV2, renderV3 } from '../../src/face/liveness/responses.js';
import { judge, type VerdictRules } from '../../src/face/liveness/verdict.js';
import { frameSize, parseHeader, readHeader, VideoInputError } from '../../src/face/liveness/video.js';
import { locateFfmpeg, withTempFile } from '../../src/platform/media/ffmpeg.js';
import { fixture } from './helpers.js';
import { animate, scene } from './liveness-videos.js';
import type { FrameResult, LivenessAnalysis } from '../../src/face/liveness/worker.js';
import { seededRandom } from '../../src/platform/random.js';

const MP4 = `Input #0, mov,mp4,m4a,3gp,3g2,mj2, from '/tmp/x/upload':
  Metadata:
    major_brand     : isom
  Duration: 00:00:06.04, start: 0.000000, bitrate: 300 kb/s
    Stream #0:0(und): Video: h264 (Constrained Baseline) (avc1 / 0x31637661), yuv420p, 1280x720 [SAR 1:1 DAR 16:9], 298 kb/s, 29.97 fps, 30 tbr, 15360 tbn, 60 tbc (default)
    Metadata:
      rotate          : 90
At least one output file must be specified`;

describe('liveness: video header', () => {
  it('reads container, duration, frame rate and the displayed size (rotation applied)', () => {
    const h = parseHeader(MP4);
    assert.equal(h.container, 'mov,mp4,m4a,3gp,3g2,mj2');
    assert.equal(h.codec, 'h264');
    assert.ok(Math.abs(h.seconds! - 6.04) < 1e-9);
    assert.equal(h.fps, 29.97);
    assert.deepEqual([h.width, h.height], [720, 1280]);
    // Newer ffmpeg prints the rotation as side data.
    const newer = parseHeader(MP4.replace('rotate          : 90', 'displaymatrix: rotation of -90.00 degrees'));
    assert.deepEqual([newer.width, newer.height], [720, 1280]);
    const upright = parseHeader(MP4.replace(/rotate.*\n/, ''));
    assert.deepEqual([upright.width, upright.height], [1280, 720]);
  });

  it('tells an input without a video stream or without a container', () => {
    assert.equal(parseHeader("Input #0, wav, from 'x':\n  Duration: 00:00:02.00\n    Stream #0:0: Audio: pcm_s16le, 16000 Hz").hasVideo, false);
    assert.equal(parseHeader('upload: Invalid data found when processing input').container, undefined);
  });

  it('reads a real header, and gives up at its time limit', async () => {
    const o = { width: 320, height: 240, fps: 10, seconds: 2 };
    const video = await animate(await scene(fixture('grace_hopper.jpg'), o), 'shake', o);
    const ffmpeg = await locateFfmpeg('auto');
    await withTempFile('saola-live-test-', video, async (file) => {
      const h = await readHeader(ffmpeg, file, 20_000);
      assert.deepEqual([h.width, h.height, h.fps], [320, 240, 10]);
      assert.ok(Math.abs(h.seconds - 2) < 0.15, String(h.seconds));
      await assert.rejects(readHeader(ffmpeg, file, 1), (err: Error) => err instanceof VideoInputError && /too long/.test(err.message));
    });
  });

  it('analysis size keeps the aspect, long side at most the setting, even numbers', () => {
    assert.deepEqual(frameSize({ width: 1280, height: 720 }, 640), { width: 640, height: 360 });
    assert.deepEqual(frameSize({ width: 720, height: 1280 }, 640), { width: 360, height: 640 });
    assert.deepEqual(frameSize({ width: 333, height: 201 }, 640), { width: 334, height: 202 });
  });
});

describe('liveness: motion', () => {
  const rnd = seededRandom(7);
  const face = Array.from({ length: 136 }, (_, i) => (i % 2 ? 200 : 300) + rnd() * 100);
  // Eyes 60 px apart so residuals have a unit.
  for (let i = 36; i < 42; i++) {
    face[2 * i] = 280;
    face[2 * i + 1] = 220;
    face[2 * (i + 6)] = 340;
    face[2 * (i + 6) + 1] = 220;
  }
  const apply = (H: number[], p: number[]) =>
    p.map((_, i) => {
      const k = i - (i % 2);
      const x = p[k];
      const y = p[k + 1];
      const w = H[6] * x + H[7] * y + H[8];
      return i % 2 ? (H[3] * x + H[4] * y + H[5]) / w : (H[0] * x + H[1] * y + H[2]) / w;
    });

  it('recovers a plane moved in perspective exactly', () => {
    const H = [1.05, 0.08, 12, -0.06, 0.97, -7, 0.0002, -0.0001, 1];
    const moved = apply(H, face);
    const fit = fitHomography(face, moved)!;
    assert.ok(homographyResidual(fit, face, moved) < 1e-6);
    // Exact planar motion leaves no residual at all.
    assert.ok(nonRigidity([face, moved, apply([0.9, 0, 5, 0, 0.9, 3, 0, 0, 1], face)], 0) < 1e-3);
  });

  it('a face that changes shape over the video scores far above a noisy plane', () => {
    const noisy = (p: number[], k: number) => p.map((v, i) => v + (((i * 7919 + k * 104729) % 13) - 6) * 0.08);
    // The mouth drops a little more in every frame, with landmark noise on top.
    const bending = Array.from({ length: 12 }, (_, k) => noisy(face.map((v, i) => (i >= 96 && i % 2 === 1 ? v + k * 1.5 : v)), k));
    const plane = Array.from({ length: 12 }, (_, k) => noisy(apply([1 + k * 0.01, 0.01 * k, 3 * k, 0, 1, -2 * k, 0, 0, 1], face), k));
    const bent = nonRigidity(bending, 0);
    const flat = nonRigidity(plane, 0);
    assert.ok(bent > 4, String(bent));
    assert.ok(flat < 3, String(flat));
  });

  it('counts blinks as open-closed-open', () => {
    assert.equal(countBlinks([0.1, 0.1, 0.9, 0.2, 0.1, 0.8, 0.9, 0.1]), 2);
    assert.equal(countBlinks([0.9, 0.9, 0.1, 0.1]), 0, 'closed at the start is not a blink');
    assert.equal(countBlinks([0.1, Number.NaN, 0.9, Number.NaN, 0.1]), 1);
  });
});

describe('liveness: fusion', () => {
  const live = { antispoof: 0.9, nonRigidity: 8, blinks: 1, moire: 1.5, glare: 0, border: 0 };
  it('strong live cues are live without review; reproduction cues pull it down', () => {
    const d = decide(live, 0.5, 0.2);
    assert.equal(d.isLive, true);
    assert.equal(d.needToReview, false);
    const screen = decide({ ...live, antispoof: 0.05, moire: 3.5, glare: 0.03, border: 0.9 }, 0.5, 0.2);
    assert.ok(screen.prob < d.prob);
  });
  it('a face moving as one plane is never live without review', () => {
    const d = decide({ ...live, nonRigidity: 1.5, antispoof: 0.999 }, 0.5, 0.2);
    assert.ok(!(d.isLive && !d.needToReview), JSON.stringify(d));
  });
});

describe('liveness: anti-spoof input', () => {
  it('crops the enlarged box inside the frame and orders channels', () => {
    const img = { data: new Uint8Array(100 * 80 * 3), width: 100, height: 80 };
    for (let i = 0; i < img.data.length; i += 3) img.data[i] = 200; // red
    const crop = antispoofCrop(img, { x1: 80, y1: 60, x2: 99, y2: 79, score: 1 }, { size: 8, scale: 2.7 });
    assert.equal(crop.width, 8);
    const rgb = antispoofTensor(crop, 'rgb');
    const bgr = antispoofTensor(crop, 'bgr');
    assert.equal(rgb[0], 200);
    assert.equal(bgr[2 * 64], 200);
    assert.ok(Math.abs(liveProbability([2, 0, 0], 0) - Math.exp(2) / (Math.exp(2) + 2)) < 1e-12);
  });
});

describe('liveness: verdict and bodies', () => {
  const rules: VerdictRules = { version: 3, minFaceRatio: 0.2, minBlurVariance: 30, secondFaceRatio: 0.25, liveThreshold: 0.5, reviewMargin: 0.2 };
  const lm = (dx: number) => Array.from({ length: 136 }, (_, i) => (i % 2 ? 150 + (i % 7) * 5 : 280 + (i % 11) * 6 + dx));
  const frame = (over: Partial<FrameResult> = {}, dx = 0): FrameResult => ({
    faces: [{ x1: 250 + dx, y1: 100, x2: 400 + dx, y2: 280, score: 0.99 }],
    face: { box: { x1: 250 + dx, y1: 100, x2: 400 + dx, y2: 280, score: 0.99 }, landmarks: lm(dx), eyeClosed: [0.1, 0.1], blur: 120, brightness: 120, eyeBrightness: 110, pose: { roll: 0, yaw: 3, pitch: 2 } },
    diff: 3,
    diffFirst: 3,
    ...over,
  });
  const analysis = (frames: FrameResult[]): LivenessAnalysis => ({ width: 640, height: 360, frames, best: 0, cueFrames: [0], antispoof: [0.5], skin: [{ upper: 0.8, lower: 0.7 }], moire: 0, glare: 0, border: 0, ms: 1 });

  it('maps each failure to its outcome', () => {
    const n = 10;
    const ok = Array.from({ length: n }, (_, i) => frame({}, i));
    assert.equal(judge(analysis(ok), rules).outcome, 'ok');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, faces: [], face: undefined }))), rules).outcome, 'noFace');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, faces: [...f.faces, { x1: 10, y1: 10, x2: 140, y2: 170, score: 0.9 }] }))), rules).outcome, 'severalFaces');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, blur: 5 } }))), rules).outcome, 'faceBlurry');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, brightness: 20 } }))), rules).outcome, 'poorQuality');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, brightness: 20 } }))), { ...rules, version: 2 }).outcome, 'ok');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, pose: { roll: 0, yaw: 40, pitch: 0 } } }))), rules).outcome, 'notFrontal');
    const shades = ok.map((f) => ({ ...f, face: { ...f.face!, eyeClosed: [0.97, 0.95] as [number, number], eyeBrightness: 30 } }));
    assert.equal(judge(analysis(shades), rules).outcome, 'poorQuality');
    assert.equal(judge({ ...analysis(ok), skin: [{ upper: 0.8, lower: 0.05 }] }, rules).outcome, 'poorQuality', 'a mask');
    assert.equal(judge(analysis(shades), { ...rules, version: 2 }).outcome, 'ok');
    assert.equal(judge(analysis(Array.from({ length: n }, () => frame({ diff: 0.1, diffFirst: 0.1 }))), rules).outcome, 'stillImage');
    const gone = ok.map((f, i) => (i > 6 ? { ...f, faces: [], face: undefined } : f));
    assert.equal(judge(analysis(gone), rules).outcome, 'faceLost');
    const edge = gone.map((f, i) => (i === 6 ? frame({}, 239) : f));
    assert.equal(judge(analysis(edge), rules).outcome, 'faceLeftFrame');
    assert.equal(judge(analysis(edge), { ...rules, version: 2 }).outcome, 'faceLost');
  });

  it('v2 and v3 bodies', () => {
    const ok = { entry: LivenessErrors.ok, detail: 'Success', decision: { prob: 0.91234, isLive: true, needToReview: false }, warnings: [] };
    assert.deepEqual(renderV2({ ...ok, faceMatch: { isMatch: true, similarity: 93.5 } }), {
      code: '200', message: 'request successful.', is_live: true, prob: '0.9123', need_to_review: false, deepfake_prob: 'N/A', face_match: { isMatch: true, similarity: 93.5 },
    });
    const v3 = renderV3({ ...ok, warnings: ['low'], faceMatch: { error: LivenessErrors.cmndNoFace, detail: 'No faces detected' } }) as any;
    assert.equal(v3.code, '407');
    assert.deepEqual(v3.liveness, { code: '200', message: 'Success', is_live: 'true', spoof_prob: '0.0877', need_to_review: 'false', is_deepfake: 'N/A', deepfake_prob: 'N/A', warning: 'low' });
    assert.deepEqual(v3.face_match, { code: '407', message: 'No faces detected', isMatch: 'N/A', similarity: 'N/A', warning: 'N/A' });
    assert.deepEqual(renderV2({ entry: LivenessErrors.severalFaces, detail: 'x', warnings: [] }), { code: '408', message: 'request successful.', is_live: false, need_to_review: false, data: 'x' });
    for (const v of Object.values(renderV3({ entry: LivenessErrors.faceLeftFrame, detail: 'gone', warnings: [] }).liveness as object)) assert.equal(typeof v, 'string');
  });
});
