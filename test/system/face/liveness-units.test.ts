import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LivenessErrors } from '../../../src/liveness/errors.js';
import { antispoofCrop, antispoofTensor, liveProbability } from '../../../src/liveness/engine/antispoof.js';
import sharp from 'sharp';
import { countBlinks, decide, evidence, FUSION } from '../../../src/liveness/engine/fusion.js';
import { fitHomography, homographyResidual, nonRigidity } from '../../../src/liveness/engine/motion.js';
import { eyeCover, eyesCovered, type EyeCover } from '../../../src/liveness/engine/occlusion.js';
import { asymmetryToYaw, boxYaw, contourYaw, cylinderAsymmetry, estimateYaw } from '../../../src/liveness/engine/pose.js';
import { renderV2, renderV3 } from '../../../src/liveness/responses.js';
import { SCENE, sceneFollowsFace } from '../../../src/liveness/engine/scene.js';
import { inRuns, judge, type VerdictRules } from '../../../src/liveness/engine/verdict.js';
import { decodeFrames, frameSize, parseHeader, readVideo, VideoInputError } from '../../../src/liveness/engine/video.js';
import { locateFfmpeg, withTempFile } from '../../../src/platform/media/ffmpeg.js';
import { fixture } from '../../../fixtures/faces/photos.js';
import { animate, faceOverRoom, scene } from '../../../fixtures/videos/liveness.js';
import type { FrameResult, LivenessAnalysis } from '../../../src/liveness/engine/worker.js';
import { seededRandom } from '../../../src/platform/random.js';

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

  it('reads a real header and its frames in one ffmpeg run, and gives up at its time limit', async () => {
    const o = { width: 320, height: 240, fps: 10, seconds: 2 };
    const video = await animate(await scene(fixture('grace_hopper.jpg'), o), 'shake', o);
    const ffmpeg = await locateFfmpeg('auto');
    const opts = { fps: 5, side: 640, maxSeconds: 7, timeoutMs: 20_000 };
    await withTempFile('saola-live-test-', video, async (file) => {
      const read = await readVideo(ffmpeg, file, opts);
      const h = read.header;
      assert.deepEqual([h.width, h.height, h.fps], [320, 240, 10]);
      assert.ok(Math.abs(h.seconds - 2) < 0.15, String(h.seconds));
      const frames = await read.frames();
      assert.deepEqual([frames.width, frames.height], [320, 240]);
      assert.ok(frames.count >= 10 && frames.count <= 11, String(frames.count));
      assert.equal(frames.data.length, frames.count * 320 * 240 * 3);
      assert.ok(frames.data.buffer instanceof SharedArrayBuffer);
      // The raw frames written beside the upload are gone once read.
      assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
      await assert.rejects(readVideo(ffmpeg, file, { ...opts, timeoutMs: 1 }), (err: Error) => err instanceof VideoInputError && /too long/.test(err.message));
    });
  });

  it('decodes at the analysis size of frameSize (odd sizes, portrait) and refuses a cut stream', async () => {
    const ffmpeg = await locateFfmpeg('auto');
    for (const [w, h, want] of [
      [1280, 720, [640, 360]],
      [720, 1280, [360, 640]],
      [482, 270, [482, 270]],
      [1000, 562, [640, 360]],
    ] as const) {
      const o = { width: w, height: h, fps: 10, seconds: 1 };
      const video = await animate(await scene(fixture('grace_hopper.jpg'), o), 'shake', o);
      const frames = await withTempFile('saola-live-test-', video, (file) => decodeFrames(ffmpeg, file, { fps: 5, side: 640, maxSeconds: 7, timeoutMs: 20_000 }));
      assert.deepEqual([frames.width, frames.height], [...want], `${w}x${h}`);
      assert.deepEqual(frameSize({ width: w, height: h }, 640), { width: want[0], height: want[1] });
    }
    const o = { width: 320, height: 240, fps: 10, seconds: 2 };
    const video = await animate(await scene(fixture('grace_hopper.jpg'), o), 'shake', o);
    await withTempFile('saola-live-test-', video.subarray(0, Math.floor(video.length / 3)), async (file) => {
      await assert.rejects(readVideo(ffmpeg, file, { fps: 5, side: 640, maxSeconds: 7, timeoutMs: 20_000 }), VideoInputError);
      assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
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
    const bending = Array.from({ length: 12 }, (_, k) =>
      noisy(
        face.map((v, i) => (i >= 96 && i % 2 === 1 ? v + k * 1.5 : v)),
        k,
      ),
    );
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

describe('liveness: do the surroundings move with the face', () => {
  // A textured scene (smooth blobs and edges, seeded) and a face drawn on it with 68 landmarks.
  const W = 320;
  const H = 240;
  const rnd = seededRandom(11);
  const blobs = Array.from({ length: 40 }, () => [rnd() * W * 1.4 - 0.2 * W, rnd() * H * 1.4 - 0.2 * H, 6 + rnd() * 20, rnd() * 200]);
  const texture = (x: number, y: number) => {
    let v = 40 + 20 * Math.sin(x / 7) * Math.cos(y / 9);
    for (const [bx, by, r, g] of blobs) v += g * Math.exp(-((x - bx) ** 2 + (y - by) ** 2) / (2 * r * r));
    return Math.max(0, Math.min(255, v));
  };
  const baseLm = Array.from({ length: 136 }, (_, i) => {
    const k = Math.floor(i / 2);
    const a = (k / 68) * 2 * Math.PI * 3;
    return i % 2 ? 120 + 40 * Math.sin(a) * (0.4 + (k % 5) / 8) : 160 + 35 * Math.cos(a) * (0.4 + (k % 7) / 10);
  });
  for (let i = 36; i < 42; i++) {
    baseLm[2 * i] = 145;
    baseLm[2 * i + 1] = 110;
    baseLm[2 * (i + 6)] = 175;
    baseLm[2 * (i + 6) + 1] = 110;
  }
  const box = (lm: number[]) => {
    const xs = lm.filter((_, i) => i % 2 === 0);
    const ys = lm.filter((_, i) => i % 2 === 1);
    return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
  };
  /** A frame: background shifted by (bx, by), face (its disc of texture, inside the box's ring, and its landmarks) shifted by (fx, fy); `noise` grey levels. */
  const frame = (bx: number, by: number, fx: number, fy: number, noise: number, seed: number) => {
    const r = seededRandom(seed);
    const out = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const inFace = (x - 160 - fx) ** 2 / 38 ** 2 + (y - 120 - fy) ** 2 / 40 ** 2 < 1;
        const v = inFace ? texture(x - fx + 500, y - fy) : texture(x - bx, y - by);
        const g = Math.max(0, Math.min(255, Math.round(v + (r() - 0.5) * 2 * noise)));
        out.set([g, g, g], 3 * (y * W + x));
      }
    const lm = baseLm.map((v, i) => v + (i % 2 ? fy : fx));
    return { rgb: out, face: { landmarks: lm, box: box(lm) } };
  };
  const score = (moves: [number, number, number, number][], noise = 1) => {
    const frames = moves.map(([bx, by, fx, fy], k) => frame(bx, by, fx, fy, noise, k + 1));
    return sceneFollowsFace(
      (i) => frames[i].rgb,
      W,
      H,
      frames.map((f) => f.face),
      0,
    );
  };
  const path = <T>(f: (k: number) => T): T[] => Array.from({ length: 8 }, (_, k) => f(k));

  it('a picture moved as a whole (face and surroundings together) scores well below 0', () => {
    const s = score(path((k): [number, number] => [3 * Math.sin(k), 2 * Math.cos(k * 1.3)]).map(([x, y]): [number, number, number, number] => [x, y, x, y]));
    assert.ok(s.frames >= SCENE.minFrames, JSON.stringify(s));
    assert.ok(s.score < -0.5, JSON.stringify(s));
  });
  it('a face moving in front of a background that stays scores above 0', () => {
    const s = score(path((k): [number, number] => [3 * Math.sin(k), 2 * Math.cos(k * 1.3)]).map(([x, y]): [number, number, number, number] => [0, 0, x, y]));
    assert.ok(s.frames >= SCENE.minFrames, JSON.stringify(s));
    assert.ok(s.score > 0.2, JSON.stringify(s));
  });
  it('a hand-held camera (the background moves half as far as the face) is not taken for one picture', () => {
    const s = score(path((k): [number, number] => [4 * Math.sin(k), 3 * Math.cos(k * 1.3)]).map(([x, y]): [number, number, number, number] => [x / 2, y / 2, x, y]));
    assert.ok(s.score > -0.3, JSON.stringify(s));
    assert.equal(evidence({ antispoof: 0.9, nonRigidity: 4, blinks: 0, moire: 2, glare: 0, border: 0, scene: s.score }).scene, 0, JSON.stringify(s));
  });
  it('no motion, or a plain background, gives no evidence either way', () => {
    const still = score(path((): [number, number, number, number] => [0, 0, 0, 0]));
    assert.equal(still.score, 0);
    assert.equal(still.frames, 0);
    // Plain surroundings: the warped and the unwarped ring are equally good (compression-like noise only).
    const frames = path((k): [number, number] => [3 * Math.sin(k), 2 * Math.cos(k)]).map(([x, y], k) => {
      const f = frame(0, 0, x, y, 2, k + 1);
      for (let p = 0; p < W * H; p++) {
        const px = p % W;
        const py = Math.floor(p / W);
        if ((px - 160 - x) ** 2 / 38 ** 2 + (py - 120 - y) ** 2 / 40 ** 2 >= 1) f.rgb.fill(90 + (k % 2), 3 * p, 3 * p + 3);
      }
      return f;
    });
    const plain = sceneFollowsFace(
      (i) => frames[i].rgb,
      W,
      H,
      frames.map((f) => f.face),
      0,
    );
    assert.ok(Math.abs(plain.score) < 0.25, JSON.stringify(plain));
  });
});

describe('liveness: the scene cue on generated videos (decoded and analysed as the server does)', () => {
  const o = { width: 640, height: 360, fps: 25, seconds: 5.5 };
  const analyse = async (video: Buffer) => {
    const { loadFaceConfig } = await import('../../../src/face/config.js');
    const { loadLivenessConfig } = await import('../../../src/liveness/config.js');
    const { LivenessEngine } = await import('../../../src/liveness/engine/index.js');
    const cfg = loadFaceConfig(process.env, 1);
    const lcfg = { ...loadLivenessConfig(process.env, 1), threads: 1 };
    const engine = new LivenessEngine(cfg, lcfg, { maxQueue: 2, timeoutMs: 120_000 });
    try {
      const ffmpeg = await locateFfmpeg('auto');
      const frames = await withTempFile('saola-live-test-', video, async (file) =>
        decodeFrames(ffmpeg, file, { fps: lcfg.sampleFps, side: lcfg.frameSide, maxSeconds: 7, timeoutMs: 60_000 }),
      );
      return await engine.analyze(frames, { embed: false });
    } finally {
      await engine.close();
    }
  };

  it('a photo moved as a whole: the surroundings follow the face (evidence against); a face swaying in front of a still room: they do not', async () => {
    const photo = fixture('grace_hopper.jpg');
    const moved = await analyse(await animate(await scene(photo, o), 'shake', o));
    assert.ok(moved.scene.frames >= SCENE.minFrames, JSON.stringify(moved.scene));
    assert.ok(moved.scene.score < FUSION.sceneFrom, JSON.stringify(moved.scene));
    const { analyze } = await import('../../../src/face/engine/worker.js');
    const found = await analyze({ image: photo, detectThreshold: 0.7, checkCard: false });
    assert.ok(found.ok && found.primary);
    const k = (await sharp(photo).rotate().metadata()).width! / found.width;
    const b = found.primary.box;
    const room = await analyse(await faceOverRoom(photo, { x1: b.x1 * k, y1: b.y1 * k, x2: b.x2 * k, y2: b.y2 * k }, o));
    assert.ok(room.scene.frames >= SCENE.minFrames, JSON.stringify(room.scene));
    assert.ok(room.scene.score > 0, JSON.stringify(room.scene));
  });
});

describe('liveness: fusion', () => {
  const live = { antispoof: 0.9, nonRigidity: 8, blinks: 1, moire: 1.5, glare: 0, border: 0, scene: 0.5 };
  it('strong live cues are live without review; reproduction cues pull it down', () => {
    const d = decide(live, 0.5, 0.2);
    assert.equal(d.isLive, true);
    assert.equal(d.needToReview, false);
    const screen = decide({ ...live, antispoof: 0.05, moire: 3.5, glare: 0.03, border: 0.9 }, 0.5, 0.2);
    assert.ok(screen.prob < d.prob);
  });
  it('a face moving as one rigid plane is never live without review', () => {
    const d = decide({ ...live, nonRigidity: 1.0, antispoof: 0.999 }, 0.5, 0.2);
    assert.ok(!(d.isLive && !d.needToReview), JSON.stringify(d));
  });
  it('a real webcam face: little head motion, no blink, a false border, a confident anti-spoof score is live without review', () => {
    const d = decide({ antispoof: 0.95, nonRigidity: 2.1, blinks: 0, moire: 3.1, glare: 0, border: 0.78, scene: 0.44 }, 0.5, 0.2);
    assert.equal(d.isLive, true);
    assert.equal(d.needToReview, false);
  });
  it('a replay the anti-spoof nets refuse stays refused whatever the motion cues say', () => {
    const d = decide({ antispoof: 0.03, nonRigidity: 7, blinks: 1, moire: 2.7, glare: 0, border: 0, scene: 0.5 }, 0.5, 0.2);
    assert.equal(d.isLive, false);
  });
  it('an uncertain anti-spoof score with nothing else is sent to review, not decided', () => {
    const d = decide({ antispoof: 0.5, nonRigidity: 4, blinks: 0, moire: 2.5, glare: 0, border: 0, scene: 0 }, 0.5, 0.2);
    assert.equal(d.needToReview, true);
  });
  it('a sharp photo the nets call live is refused when its surroundings move with the face', () => {
    // The generated held-out photo attack the nets scored 1.00 (docs/liveness.md): rigid-ish motion, no blink.
    const photo = { antispoof: 1, nonRigidity: 1.93, blinks: 0, moire: 2.6, glare: 0, border: 0 };
    const d = decide({ ...photo, scene: -1.4 }, 0.5, 0.2);
    assert.equal(d.isLive, false);
    assert.equal(d.needToReview, false);
    // The same nets' score with surroundings that stay put is live: the cue only ever counts against.
    assert.equal(decide({ ...photo, nonRigidity: 4, scene: 0.6 }, 0.5, 0.2).isLive, true);
    assert.equal(decide({ ...live, scene: 2 }, 0.5, 0.2).prob, decide({ ...live, scene: 0 }, 0.5, 0.2).prob);
  });
  it('selfie images: the motion cues neither help nor cap', () => {
    const d = decide({ antispoof: 0.97, nonRigidity: 0, blinks: 0, moire: 2.5, glare: 0, border: 0, scene: 0 }, 0.5, 0.2, { selfies: true });
    assert.equal(d.isLive, true);
    assert.equal(d.needToReview, false);
    assert.equal(decide({ antispoof: 0.97, nonRigidity: 0, blinks: 0, moire: 2.5, glare: 0, border: 0, scene: 0 }, 0.5, 0.2).needToReview, true);
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
    face: {
      box: { x1: 250 + dx, y1: 100, x2: 400 + dx, y2: 280, score: 0.99 },
      landmarks: lm(dx),
      eyeClosed: [0.1, 0.1],
      blur: 120,
      brightness: 120,
      eyeBrightness: 110,
      pose: { roll: 0, yaw: 3, pitch: 2 },
      yaw: { landmarks: 3, contour: 4, box: 2, yaw: 3 },
      cover: { darkness: [0.7, 0.7], darkShare: [0.3, 0.3] },
    },
    diff: 3,
    diffFirst: 3,
    ...over,
  });
  const analysis = (frames: FrameResult[]): LivenessAnalysis => ({
    width: 640,
    height: 360,
    frames,
    best: 0,
    cueFrames: [0],
    antispoof: [0.5],
    antispoofAll: [0.5],
    skin: [{ upper: 0.8, lower: 0.7 }],
    moire: 0,
    glare: 0,
    border: 0,
    scene: { score: 0, frames: 0 },
    ms: 1,
  });

  it('maps each failure to its outcome', () => {
    const n = 10;
    const ok = Array.from({ length: n }, (_, i) => frame({}, i));
    assert.equal(judge(analysis(ok), rules).outcome, 'ok');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, faces: [], face: undefined }))), rules).outcome, 'noFace');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, faces: [...f.faces, { x1: 10, y1: 10, x2: 140, y2: 170, score: 0.9 }] }))), rules).outcome, 'severalFaces');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, blur: 5 } }))), rules).outcome, 'faceBlurry');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, brightness: 20 } }))), rules).outcome, 'poorQuality');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, brightness: 20 } }))), { ...rules, version: 2 }).outcome, 'ok');
    const turnedBy = (yaw: { landmarks: number; contour: number; box: number }) =>
      ok.map((f) => ({ ...f, face: { ...f.face!, yaw: { ...yaw, yaw: [yaw.landmarks, yaw.contour, yaw.box].sort((x, y) => Math.abs(x) - Math.abs(y))[1] } } }));
    // Two of the three yaw estimates must say "turned": the landmark net pulls a profile back towards frontal.
    assert.equal(judge(analysis(turnedBy({ landmarks: 17, contour: 40, box: 45 })), rules).outcome, 'notFrontal');
    assert.equal(judge(analysis(turnedBy({ landmarks: 40, contour: 8, box: 5 })), rules).outcome, 'ok');
    assert.equal(judge(analysis(turnedBy({ landmarks: 17, contour: 40, box: 45 })), { ...rules, version: 2 }).outcome, 'ok');
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, pose: { roll: 0, yaw: 3, pitch: 40 } } }))), rules).outcome, 'notFrontal');
    // Dark glasses the eye model missed: both eye patches dark and flat against the cheeks.
    const withCover = (cover: EyeCover) => ok.map((f): FrameResult => ({ ...f, face: { ...f.face!, cover } }));
    const lenses = withCover({ darkness: [0.15, 0.2], darkShare: [0.95, 0.9] });
    assert.equal(judge(analysis(lenses), rules).outcome, 'poorQuality');
    assert.equal(judge(analysis(lenses), { ...rules, version: 2 }).outcome, 'ok');
    const oneLens = withCover({ darkness: [0.15, 0.7], darkShare: [0.95, 0.3] });
    assert.equal(judge(analysis(oneLens), rules).outcome, 'ok');
    // In fewer than half the frames (a hand passing): not covered.
    assert.equal(judge(analysis(ok.map((f, i) => (i < 4 ? lenses[i] : f))), rules).outcome, 'ok');
    const shades = ok.map((f) => ({ ...f, face: { ...f.face!, eyeClosed: [0.97, 0.95] as [number, number], eyeBrightness: 30 } }));
    assert.equal(judge(analysis(shades), rules).outcome, 'poorQuality');
    assert.equal(judge({ ...analysis(ok), skin: [{ upper: 0.8, lower: 0.05 }] }, rules).outcome, 'poorQuality', 'a mask');
    assert.equal(judge(analysis(shades), { ...rules, version: 2 }).outcome, 'ok');
    assert.equal(judge(analysis(Array.from({ length: n }, () => frame({ diff: 0.1, diffFirst: 0.1 }))), rules).outcome, 'stillImage');
    const gone = ok.map((f, i) => (i > 6 ? { ...f, faces: [], face: undefined } : f));
    assert.equal(judge(analysis(gone), rules).outcome, 'faceLost');
    // Single frames the detector missed, here and there (40% of them), are not a lost face.
    const missed = ok.map((f, i) => (i % 2 === 1 && i < 9 ? { ...f, faces: [], face: undefined } : f));
    assert.equal(judge(analysis(missed), rules).outcome, 'ok');
    assert.equal(inRuns([true, false, true, true, false, true, true, true], 2), 5);
    // A phone selfie's camera below the eyes reads a frontal face at ~28 degrees of pitch.
    assert.equal(judge(analysis(ok.map((f) => ({ ...f, face: { ...f.face!, pose: { roll: 0, yaw: 1, pitch: -28 } } }))), rules).outcome, 'ok');
    // The anti-spoof cue is the median over the scored frames: one frame's swing does not move it.
    assert.equal(judge({ ...analysis(ok), antispoofAll: [0.9, 0.1, 0.95, 0.92, 0.88] }, rules).cues!.antispoof, 0.9);
    // One selfie image: no still-image rule, one frontal frame is enough.
    assert.equal(judge(analysis([frame({ diff: 0, diffFirst: 0 })]), { ...rules, selfies: true }).outcome, 'ok');
    assert.equal(judge(analysis([frame({ diff: 0, diffFirst: 0 }), frame({ diff: 0, diffFirst: 0 })]), rules).outcome, 'stillImage');
    // The face vanished right after the frame's edge cut a part of it: it left the frame (v3), v2 has one code.
    const edge = gone.map((f, i) => (i === 6 ? boxed(f, { x1: 560, x2: 640 }) : f));
    assert.equal(judge(analysis(edge), rules).outcome, 'faceLeftFrame');
    assert.equal(judge(analysis(edge), { ...rules, version: 2 }).outcome, 'faceLost');
  });

  /** The frame with its face box replaced (every detected box too). */
  const boxed = (f: FrameResult, b: Partial<{ x1: number; y1: number; x2: number; y2: number }>): FrameResult => {
    const box = { ...f.face!.box, ...b };
    return { ...f, faces: [box], face: { ...f.face!, box } };
  };

  it('each input check at its limit: refused just past it, passed with a warning naming it just inside', () => {
    const n = 10;
    const ok = Array.from({ length: n }, (_, i) => frame({}, i));
    const each = (over: Partial<NonNullable<FrameResult['face']>>) => ok.map((f) => ({ ...f, face: { ...f.face!, ...over } }));
    const at = (frames: FrameResult[], r: VerdictRules = rules) => judge(analysis(frames), r);
    assert.deepEqual(at(ok).near, [], 'nothing near a limit');
    // 411: the face box's height over the frame's short side (360), median over frames; limit 0.2 (72 px).
    const tall = (h: number) => ok.map((f) => boxed(f, { y2: 100 + h }));
    assert.equal(at(tall(71.5)).outcome, 'faceTooSmall');
    let v = at(tall(72.5));
    assert.equal(v.outcome, 'ok');
    assert.match(v.near.join(), /face small/);
    assert.deepEqual(at(tall(92)).near, []);
    // 412: median Laplacian variance of the aligned face; limit 30.
    assert.equal(at(each({ blur: 29.5 })).outcome, 'faceBlurry');
    assert.match(at(each({ blur: 30.5 })).near.join(), /face blurry/);
    // 406 (v3): median face brightness below 30 or above 225.
    assert.equal(at(each({ brightness: 29.5 })).outcome, 'poorQuality');
    v = at(each({ brightness: 31 }));
    assert.equal(v.outcome, 'ok');
    assert.match(v.near.join(), /face dark: brightness 31 \(refused below 30\)/);
    assert.equal(at(each({ brightness: 226 })).outcome, 'poorQuality');
    assert.match(at(each({ brightness: 224 })).near.join(), /face bright/);
    // A dim webcam (brightness 40) is neither refused nor warned about.
    assert.deepEqual(at(each({ brightness: 40 })).near, []);
    // 413: the 90th percentile of frame differences below 1.0 and of landmark distances below 0.08 inter-ocular.
    const still = Array.from({ length: n }, () => frame({ diff: 0.3, diffFirst: 0.3 }));
    assert.equal(at(still).outcome, 'stillImage');
    // One frame of encoder noise, or one jittery landmark fit, does not make a still photo move.
    assert.equal(at(still.map((f, i) => (i === 4 ? { ...f, diff: 6, diffFirst: 6 } : f))).outcome, 'stillImage');
    assert.equal(at(still.map((f, i) => (i === 4 ? frame({ diff: 0.3, diffFirst: 0.3 }, 30) : f))).outcome, 'stillImage');
    // Two frames of ten that differ (a blink, a word) are motion.
    assert.equal(at(still.map((f, i) => (i >= 8 ? { ...f, diff: 1.5, diffFirst: 1.5 } : f))).outcome, 'ok');
    // 410 (face lost): no face in runs of 3 frames or more, adding up to more than 20% of the frames.
    const drop = (frames: number[]) => ok.map((f, i) => (frames.includes(i) ? { ...f, faces: [], face: undefined } : f));
    assert.equal(at(drop([3, 4, 5])).outcome, 'faceLost');
    assert.equal(at(drop([3, 4, 5]), { ...rules, version: 2 }).outcome, 'faceLost');
    // A hand in front of the face for two frames, twice (0.8 s in all): not lost.
    v = at(drop([2, 3, 6, 7]));
    assert.equal(v.outcome, 'ok');
    // Two frames (0.4 s) of ten: within the limit, and at half of it, not warned about.
    assert.equal(at(drop([3, 4])).outcome, 'ok');
    // 423: a quarter of the face cut off by the frame's edge, in runs of 2 frames adding up to more than 20% of the frames.
    // The uncut face is 150 px wide: at the right edge (x2 640) a box 112 px wide has lost 25%.
    const cut = (width: number, frames: number[]) => ok.map((f, i) => (frames.includes(i) ? boxed(f, { x1: 640 - width, x2: 640 }) : f));
    assert.equal(at(cut(110, [4, 5, 6])).outcome, 'faceLeftFrame');
    assert.equal(at(cut(110, [4, 5, 6]), { ...rules, version: 2 }).outcome, 'faceLost');
    v = at(cut(116, [4, 5, 6]));
    assert.equal(v.outcome, 'ok', 'a fifth of the face out of the frame is not refused');
    assert.match(v.near.join(), /frame's edge/);
    // Only 2 frames of 10 cut: not more than 20%.
    assert.equal(at(cut(100, [4, 5])).outcome, 'ok');
    // A close-up selfie whose chin touches the bottom edge in every frame (the box 5% shorter than the face): not refused.
    assert.equal(at(ok.map((f) => boxed(f, { y1: 192, y2: 360 }))).outcome, 'ok');
    // The face's proportions when every box touches an edge: a face cut in half at the left edge in all frames is out.
    assert.equal(at(ok.map((f) => boxed(f, { x1: 0, x2: 70, y1: 100, y2: 280 }))).outcome, 'faceLeftFrame');
    // 422: frontal (|yaw| <= 25 and |pitch| <= 35 degrees) in at least max(2, 10%) of the face frames.
    const turned = (frontal: number) => ok.map((f, i) => (i < frontal ? f : { ...f, face: { ...f.face!, yaw: { landmarks: 40, contour: 40, box: 40, yaw: 40 } } }));
    assert.equal(at(turned(1)).outcome, 'notFrontal');
    v = at(turned(2));
    assert.equal(v.outcome, 'ok');
    assert.match(v.near.join(), /face turned/);
    // 408: a second face in at least 30% of the face frames; fewer is warned about.
    const second = (frames: number[]) => ok.map((f, i) => (frames.includes(i) ? { ...f, faces: [...f.faces, { x1: 10, y1: 10, x2: 140, y2: 170, score: 0.9 }] } : f));
    assert.equal(at(second([1, 2, 3])).outcome, 'severalFaces');
    assert.match(at(second([1, 2])).near.join(), /second face in 2 of 10/);
  });

  it('v2 and v3 bodies', () => {
    const ok = { entry: LivenessErrors.ok, detail: 'Success', decision: { prob: 0.91234, isLive: true, needToReview: false }, warnings: [] };
    assert.deepEqual(renderV2({ ...ok, faceMatch: { isMatch: true, similarity: 93.5 } }), {
      code: '200',
      message: 'request successful.',
      is_live: true,
      prob: '0.9123',
      need_to_review: false,
      deepfake_prob: 'N/A',
      face_match: { isMatch: true, similarity: 93.5 },
    });
    const v3 = renderV3({ ...ok, warnings: ['low'], faceMatch: { error: LivenessErrors.cmndNoFace, detail: 'No faces detected' } }) as any;
    assert.equal(v3.code, '407');
    assert.equal(v3.message, 'No faces detected in document');
    assert.deepEqual(v3.liveness, {
      code: '200',
      message: 'liveness check successful',
      is_live: 'true',
      spoof_prob: '0.0877',
      need_to_review: 'false',
      is_deepfake: 'N/A',
      deepfake_prob: 'N/A',
      warning: 'low',
    });
    assert.deepEqual(v3.face_match, { code: '407', message: 'No faces detected in document', isMatch: 'N/A', similarity: 'N/A', warning: 'N/A' });
    const good = renderV3({ ...ok, faceMatch: { isMatch: true, similarity: 99.97 } }) as any;
    assert.deepEqual(
      [good.code, good.message, good.liveness.warning, good.face_match.code, good.face_match.message],
      ['200', 'request successful', '', '200', 'face matching successful'],
    );
    const other = renderV3({ ...ok, faceMatch: { isMatch: false, similarity: 0.7 } }) as any;
    assert.deepEqual(
      [other.code, other.message, other.face_match.code, other.face_match.message, other.face_match.isMatch],
      ['303', 'face is not matching with document', '303', 'face is not matching with document', 'false'],
    );
    // Not live: 301 at the top, the liveness part itself succeeded.
    const spoof = renderV3({ ...ok, decision: { prob: 0.1, isLive: false, needToReview: false }, faceMatch: { isMatch: false, similarity: 1 } }) as any;
    assert.deepEqual(
      [spoof.code, spoof.message, spoof.liveness.code, spoof.liveness.is_live, spoof.liveness.spoof_prob],
      ['301', 'Face in video is spoof', '200', 'false', '0.9000'],
    );
    const still = renderV3({ entry: LivenessErrors.stillImage, detail: 'x', warnings: [] }) as any;
    assert.deepEqual(
      [still.code, still.message, still.liveness.message, still.liveness.is_live, still.liveness.need_to_review],
      ['413', 'Video may seem like image', 'Video may seem like image', 'false', 'false'],
    );
    const invalid = renderV3({ entry: LivenessErrors.invalidVideo, detail: 'The video is too short', warnings: [] }) as any;
    assert.deepEqual(
      [invalid.code, invalid.message, invalid.liveness.message, invalid.liveness.warning, invalid.face_match.code, invalid.face_match.message],
      ['409', 'Invalid upload image', 'The video is too short', 'N/A', '409', 'Invalid upload image'],
    );
    assert.deepEqual(renderV2({ entry: LivenessErrors.severalFaces, detail: 'x', warnings: [] }), {
      code: '408',
      message: 'request successful.',
      is_live: false,
      need_to_review: false,
      data: 'x',
    });
    for (const v of Object.values(renderV3({ entry: LivenessErrors.faceLeftFrame, detail: 'gone', warnings: [] }).liveness as object)) assert.equal(typeof v, 'string');
  });
});

describe('liveness: yaw from the face outline and the detector box', () => {
  /**
   * 68 landmarks of a head turned by `yaw` degrees under the cylinder model
   * (radius R, frontal x = R sin(phi) seen at R sin(phi + yaw)): outline at
   * -R cos(yaw) and R, eyes at phi = +-asin(0.45), nose tip at phi = 0;
   * then rolled by `roll` degrees about the nose tip and moved to (cx, cy).
   */
  const head = (yaw: number, roll = 0, R = 80, cx = 300, cy = 200) => {
    const t = (yaw * Math.PI) / 180;
    const seen = (phi: number) => R * Math.sin(phi + t);
    const pts: [number, number][] = [];
    for (let i = 0; i < 17; i++) {
      // Outline: 0-4 near side, 12-16 far side (silhouette), the jaw between.
      const y = -20 + i * 8;
      pts.push([i <= 4 ? -R * Math.cos(t) : i >= 12 ? R : seen(((i - 8) / 8) * (Math.PI / 2 - 0.2)), y]);
    }
    for (let i = 17; i < 27; i++) pts.push([seen(((i - 21.5) / 5) * 1.0), -45]);
    for (let i = 27; i < 31; i++) pts.push([seen(0), -20 + (i - 27) * 10]);
    for (let i = 31; i < 36; i++) pts.push([seen(((i - 33) / 2) * 0.25), 15]);
    const eye = Math.asin(0.45);
    for (let i = 36; i < 48; i++) pts.push([seen((i < 42 ? -eye : eye) + (((i % 6) - 2.5) / 2.5) * 0.15), -25 + ((i % 6) - 2.5)]);
    for (let i = 48; i < 68; i++) pts.push([seen(((i % 10) - 4.5) / 9), 45]);
    const r = (roll * Math.PI) / 180;
    const out: number[] = [];
    for (const [x, y] of pts) out.push(cx + x * Math.cos(r) - y * Math.sin(r), cy + x * Math.sin(r) + y * Math.cos(r));
    return out;
  };
  const boundingBox = (lm: number[]) => {
    const xs = lm.filter((_, i) => i % 2 === 0);
    const ys = lm.filter((_, i) => i % 2 === 1);
    return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys), score: 1 };
  };

  it('the cylinder asymmetry is monotonic and its inverse is exact', () => {
    assert.equal(cylinderAsymmetry(0), 0);
    assert.ok(Math.abs(cylinderAsymmetry(90) - 1) < 1e-12);
    for (let d = 0; d < 90; d += 5) assert.ok(cylinderAsymmetry(d + 5) > cylinderAsymmetry(d));
    for (const d of [-70, -25, 0, 12, 45, 89]) assert.ok(Math.abs(asymmetryToYaw(Math.sign(d) * cylinderAsymmetry(d)) - d) < 1e-6, String(d));
  });

  it('reads the turn from the outline, whatever the roll, with its sign', () => {
    for (const yaw of [0, 15, 30, 50, 70]) {
      for (const roll of [0, 40, -25]) {
        assert.ok(Math.abs(contourYaw(head(yaw, roll)) - yaw) < 0.5, `yaw ${yaw} roll ${roll}: ${contourYaw(head(yaw, roll))}`);
        // The mirror image: the same turn the other way.
        const mirrored = head(yaw, roll).map((v, i) => (i % 2 === 0 ? 1000 - v : v));
        // Mirroring swaps left and right eyes and outlines: relabel to keep iBUG order.
        const swap = (lm: number[]) => {
          const pairs: [number, number][] = [
            ...Array.from({ length: 8 }, (_, i) => [i, 16 - i] as [number, number]),
            [36, 45],
            [37, 44],
            [38, 43],
            [39, 42],
            [40, 47],
            [41, 46],
          ];
          const out = [...lm];
          for (const [a, b] of pairs) {
            [out[2 * a], out[2 * b]] = [lm[2 * b], lm[2 * a]];
            [out[2 * a + 1], out[2 * b + 1]] = [lm[2 * b + 1], lm[2 * a + 1]];
          }
          return out;
        };
        assert.ok(Math.abs(contourYaw(swap(mirrored)) + yaw) < 0.5, `mirrored yaw ${yaw} roll ${roll}`);
      }
    }
  });

  it('reads the turn from the detector box along the eye line', () => {
    for (const yaw of [0, 20, 45, 65]) {
      const lm = head(yaw);
      assert.ok(Math.abs(boxYaw(lm, boundingBox(lm)) - yaw) < 0.5, `yaw ${yaw}: ${boxYaw(lm, boundingBox(lm))}`);
    }
    // A box shifted towards the far side (hair on that side) reads less turned, not more.
    const lm = head(40);
    const b = boundingBox(lm);
    assert.ok(boxYaw(lm, { ...b, x2: b.x2 + 30 }) < 40);
  });

  it('the frontal rule reads the median: one estimate alone does not decide', () => {
    const lm = head(50);
    const b = boundingBox(lm);
    const e = estimateYaw(lm, b, 18);
    assert.equal(e.landmarks, 18);
    assert.ok(e.yaw > 45, JSON.stringify(e));
    const frontal = head(2);
    assert.ok(Math.abs(estimateYaw(frontal, boundingBox(frontal), 60).yaw) < 5);
  });
});

describe('liveness: dark glasses on the aligned face', () => {
  // A synthetic aligned face: skin, two eyes (white sclera, dark iris, lash line) at the ArcFace template's eye centres.
  const face = (opts: { lens?: [dx: number, dy: number] | null; oneLens?: boolean; leftLight?: number } = {}) => {
    const g = new Float32Array(112 * 112);
    const eyes: [number, number][] = [
      [38.3, 51.7],
      [73.5, 51.5],
    ];
    for (let y = 0; y < 112; y++) {
      for (let x = 0; x < 112; x++) {
        let v = 160;
        eyes.forEach(([ex, ey], k) => {
          const dx = x - ex;
          const dy = y - ey;
          if ((dx / 7) ** 2 + (dy / 3) ** 2 <= 1) v = 215; // sclera
          if (dx * dx + dy * dy <= 9) v = 45; // iris and pupil
          if (Math.abs(dy + 3) < 1 && Math.abs(dx) < 7) v = 50; // upper lashes
          const lens = opts.lens;
          if (lens && (!opts.oneLens || k === 0) && ((dx - lens[0]) / 15) ** 2 + ((dy - lens[1]) / 12) ** 2 <= 1) v = 22;
        });
        g[y * 112 + x] = x < 56 ? v * (opts.leftLight ?? 1) : v;
      }
    }
    return g;
  };

  it('open eyes are not covered, in even light or lit from one side', () => {
    const open = eyeCover(face());
    assert.ok(open.darkness[0] > 0.6 && open.darkShare[0] < 0.4, JSON.stringify(open));
    assert.equal(eyesCovered(open), false);
    assert.equal(eyesCovered(eyeCover(face({ leftLight: 0.4 }))), false);
  });

  it('dark lenses over both eyes are covered, also a little off the eye centres', () => {
    const c = eyeCover(face({ lens: [0, 0] }));
    assert.ok(c.darkness[0] < 0.2 && c.darkShare[1] > 0.95, JSON.stringify(c));
    assert.equal(eyesCovered(c), true);
    assert.equal(eyesCovered(eyeCover(face({ lens: [4, 2] }))), true);
    // One eye covered (a wink behind a hand, an eye patch) is not dark glasses.
    assert.equal(eyesCovered(eyeCover(face({ lens: [0, 0], oneLens: true }))), false);
  });
});

describe('liveness: committed anti-spoof models', () => {
  it('loads both MiniFASNets verified, and refuses an altered copy', async () => {
    const { loadLivenessAntispoof, LIVENESS_ANTISPOOF, livenessModelDir } = await import('../../../src/liveness/engine/models.js');
    const { createHash } = await import('node:crypto');
    for (const which of ['v2', 'v1se'] as const) {
      assert.equal(createHash('sha256').update(loadLivenessAntispoof(which)).digest('hex'), LIVENESS_ANTISPOOF[which].sha256);
    }
    const fsm = await import('node:fs');
    const os = await import('node:os');
    const pathm = await import('node:path');
    const dir = fsm.mkdtempSync(pathm.join(os.tmpdir(), 'saola-models-'));
    try {
      const bytes = fsm.readFileSync(pathm.join(livenessModelDir(), LIVENESS_ANTISPOOF.v2.file));
      bytes[bytes.length - 1] ^= 1;
      fsm.writeFileSync(pathm.join(dir, LIVENESS_ANTISPOOF.v2.file), bytes);
      assert.throws(() => loadLivenessAntispoof('v2', dir), /altered/);
      assert.throws(() => loadLivenessAntispoof('v1se', dir), /missing/);
    } finally {
      fsm.rmSync(dir, { recursive: true, force: true });
    }
  });
});
