import path from 'node:path';
import sharp from 'sharp';
import { withTempFile, type Ffmpeg } from '../platform/media/ffmpeg.js';
import type { CatalogueEntry } from '../platform/http/errors.js';
import type { LivenessConfig } from './config.js';
import { cosineToSimilarity, dot, type FaceConfig, type FaceEngine } from '../face/index.js';
import { LivenessErrors, lowResolutionWarning } from './errors.js';
import type { UploadedFile } from '../platform/http/form.js';
import type { LivenessEngine } from './engine/index.js';
import type { LivenessResult } from './responses.js';
import type { LivenessThresholds } from './store.js';
import { judge, type LivenessOutcome, type Verdict } from './engine/verdict.js';
import { readVideo, VIDEO_EXTENSIONS, VideoInputError, type DecodedFrames, type VideoHeader } from './engine/video.js';

/** Most selfie images one v3 request may carry. */
export const MAX_SELFIES = 5;

export type LivenessVersion = 2 | 3;

const OUTCOME_ENTRY: Record<LivenessOutcome, CatalogueEntry> = {
  ok: LivenessErrors.ok,
  noFace: LivenessErrors.noFace,
  severalFaces: LivenessErrors.severalFaces,
  faceTooSmall: LivenessErrors.faceTooSmall,
  faceBlurry: LivenessErrors.faceBlurry,
  stillImage: LivenessErrors.stillImage,
  faceLost: LivenessErrors.faceLost,
  faceLeftFrame: LivenessErrors.faceLeftFrame,
  notFrontal: LivenessErrors.notFrontal,
  poorQuality: LivenessErrors.poorQuality,
};

/** A refused input (409), with its reason. */
class InvalidInput extends Error {}

/** What the last check found, for the evaluation and logs (not part of the API answer). */
export interface LivenessTrace {
  header?: VideoHeader;
  verdict?: Verdict;
  frames?: number;
  analysisMs?: number;
  /** The per-frame analysis itself (evaluations study the cues on it). */
  analysis?: import('./engine/worker.js').LivenessAnalysis;
}

/**
 * Liveness from a selfie video. Checks the upload (field, extension, header:
 * container, duration, frame rate, size), decodes a few frames per second
 * with ffmpeg from a private temp file, analyses them in the liveness worker
 * pool, turns the analysis into one code of the table (or a live decision),
 * and compares `cmnd` with the straightest, sharpest frame.
 */
export class LivenessService {
  constructor(
    private readonly cfg: FaceConfig,
    private readonly lcfg: LivenessConfig,
    private readonly faces: FaceEngine,
    private readonly engine: LivenessEngine,
    private readonly ffmpeg: () => Promise<Ffmpeg>,
    private readonly thresholds?: LivenessThresholds,
  ) {}

  /** `appCode` picks the application's threshold (`saola eval liveness --write`), when one was chosen. */
  async check(version: LivenessVersion, files: UploadedFile[], trace: LivenessTrace = {}, appCode?: string): Promise<LivenessResult> {
    const warnings: string[] = [];
    const refuse = (entry: CatalogueEntry, detail: string): LivenessResult => ({ entry, detail, warnings });
    const video = files.find((f) => f.field === 'video');
    const cmnd = files.find((f) => f.field === 'cmnd');
    const selfies = files.filter((f) => f.field === 'selfies' || f.field === 'selfies[]');
    try {
      if (version === 3 && !video && selfies.length > 0) {
        if (cmnd && cmnd.data.length > this.cfg.maxImageBytes) throw new InvalidInput(`cmnd is larger than ${this.cfg.maxImageBytes} bytes`);
        const frames = await this.selfieFrames(selfies, warnings);
        return await this.judgeFrames(version, frames, cmnd, warnings, trace, appCode, true);
      }
      if (video && selfies.length > 0) throw new InvalidInput('Send either video or selfies, not both');
      if (!video || video.data.length === 0) throw new InvalidInput('No video uploaded: send the video in the form field "video"');
      const ext = path.extname(video.filename).slice(1).toLowerCase();
      if (ext && !VIDEO_EXTENSIONS.includes(ext)) throw new InvalidInput(`Wrong extension ".${ext}": allowed extensions ${VIDEO_EXTENSIONS.join(', ')}`);
      if (cmnd && cmnd.data.length > this.cfg.maxImageBytes) throw new InvalidInput(`cmnd is larger than ${this.cfg.maxImageBytes} bytes`);
      const ffmpeg = await this.ffmpeg();
      const [lo, hi] = version === 2 ? this.lcfg.v2Seconds : this.lcfg.v3Seconds;
      const frames = await withTempFile('saola-live-', video.data, async (file) => {
        // One ffmpeg run reads the header and decodes (at most the longest length accepted); the header is checked first.
        const read = await readVideo(ffmpeg, file, { fps: this.lcfg.sampleFps, side: this.lcfg.frameSide, maxSeconds: hi + 0.05, timeoutMs: this.lcfg.decodeTimeoutMs });
        const header = read.header;
        trace.header = header;
        // Container durations are rounded to 10 ms: allow that much either side.
        if (header.seconds < lo - 0.05) throw new InvalidInput(`The video is too short: ${header.seconds.toFixed(2)} s, at least ${lo} s`);
        if (header.seconds > hi + 0.05) throw new InvalidInput(`The video is too long: ${header.seconds.toFixed(2)} s, at most ${hi} s`);
        if (version === 3 && header.fps < this.lcfg.v3MinFps - 0.5) throw new InvalidInput(`The frame rate is ${header.fps} fps, at least ${this.lcfg.v3MinFps} fps`);
        const shortSide = Math.min(header.width, header.height);
        if (shortSide < this.lcfg.minShortSide)
          throw new InvalidInput(`The video is ${header.width}x${header.height}, smaller than ${this.lcfg.minShortSide} px on its short side`);
        // 720x1280 (portrait) is 720p: the short side decides.
        if (version === 3 && shortSide < this.lcfg.v3WarnShortSide) warnings.push(lowResolutionWarning('video'));
        return read.frames();
      });
      return await this.judgeFrames(version, frames, cmnd, warnings, trace, appCode, false);
    } catch (err) {
      if (err instanceof InvalidInput || err instanceof VideoInputError) return refuse(LivenessErrors.invalidVideo, err.message);
      throw err;
    }
  }

  /**
   * Selfie images (v3's `selfies`, the guide's limits: each at most 5 MB, JPEG
   * or PNG, at most MAX_SELFIES) as frames of the size the video frames are
   * analysed at; each fitted into the first one's size.
   */
  private async selfieFrames(selfies: UploadedFile[], warnings: string[]): Promise<DecodedFrames> {
    if (selfies.length > MAX_SELFIES) throw new InvalidInput(`At most ${MAX_SELFIES} selfies`);
    const images: { data: Buffer; width: number; height: number }[] = [];
    let width = 0;
    let height = 0;
    let warned = false;
    for (const f of selfies) {
      if (f.data.length === 0) throw new InvalidInput('An empty selfie');
      if (f.data.length > this.cfg.maxImageBytes) throw new InvalidInput(`A selfie is larger than ${this.cfg.maxImageBytes} bytes`);
      let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
      try {
        meta = await sharp(f.data, { limitInputPixels: 50_000_000 }).metadata();
      } catch {
        throw new InvalidInput('A selfie is not a readable image');
      }
      if (meta.format !== 'jpeg' && meta.format !== 'png') throw new InvalidInput('Selfies must be JPEG or PNG images');
      const [w, h] = (meta.orientation ?? 1) >= 5 ? [meta.height!, meta.width!] : [meta.width!, meta.height!];
      if (Math.min(w, h) < this.lcfg.minShortSide) throw new InvalidInput(`A selfie is ${w}x${h}, smaller than ${this.lcfg.minShortSide} px on its short side`);
      if (Math.min(w, h) < this.lcfg.v3WarnShortSide && !warned) {
        warnings.push(lowResolutionWarning('image'));
        warned = true;
      }
      if (!width) {
        const scale = Math.min(1, this.lcfg.frameSide / Math.max(w, h));
        width = Math.round(w * scale);
        height = Math.round(h * scale);
      }
      try {
        const { data } = await sharp(f.data)
          .rotate()
          .removeAlpha()
          .resize({ width, height, fit: 'contain', background: '#000' })
          .raw()
          .toBuffer({ resolveWithObject: true });
        images.push({ data, width, height });
      } catch {
        throw new InvalidInput('A selfie is not a readable image');
      }
    }
    const size = width * height * 3;
    const data = new Uint8Array(new SharedArrayBuffer(size * images.length));
    images.forEach((im, i) => data.set(im.data, i * size));
    return { data, width, height, count: images.length, interval: 1 };
  }

  /** Analysis, the code table and the fusion, then `cmnd` against the best frame. */
  private async judgeFrames(
    version: LivenessVersion,
    frames: DecodedFrames,
    cmnd: UploadedFile | undefined,
    warnings: string[],
    trace: LivenessTrace,
    appCode: string | undefined,
    selfies: boolean,
  ): Promise<LivenessResult> {
    trace.frames = frames.count;
    const analysis = await this.engine.analyze(frames, { embed: Boolean(cmnd) });
    trace.analysisMs = analysis.ms;
    trace.analysis = analysis;
    const threshold = (appCode !== undefined ? await this.thresholds?.forApp(appCode) : undefined) ?? this.lcfg.liveThreshold;
    const verdict = judge(analysis, {
      version,
      minFaceRatio: this.lcfg.minFaceRatio,
      minBlurVariance: this.lcfg.minBlurVariance,
      secondFaceRatio: this.cfg.secondFaceRatio,
      liveThreshold: threshold,
      reviewMargin: this.lcfg.reviewMargin,
      selfies,
    });
    trace.verdict = verdict;
    // v3's `warning` names the checks that passed near their limit.
    for (const w of verdict.near) warnings.push(`Near the limit: ${w}`);
    const entry = OUTCOME_ENTRY[verdict.outcome];
    if (verdict.outcome !== 'ok' || !verdict.decision) return { entry, detail: entry.message, warnings };
    const result: LivenessResult = { entry, detail: entry.message, decision: verdict.decision, warnings };
    if (cmnd && analysis.embedding) result.faceMatch = await this.compare(cmnd, analysis.embedding);
    return result;
  }

  /** `cmnd`'s largest face against the video's best frame, on face match's similarity scale and threshold. */
  private async compare(cmnd: UploadedFile, embedding: Float32Array): Promise<LivenessResult['faceMatch']> {
    const r = await this.faces.analyze(cmnd.data, { checkCard: false });
    if (!r.ok) return { error: LivenessErrors.cmndNoFace, detail: `${LivenessErrors.cmndNoFace.message}: cmnd cannot be decoded as an image` };
    if (!r.primary) return { error: LivenessErrors.cmndNoFace, detail: LivenessErrors.cmndNoFace.message };
    const similarity = Math.round(cosineToSimilarity(dot(embedding, r.primary.embedding)) * 10000) / 100;
    return { isMatch: similarity >= this.cfg.matchThreshold, similarity };
  }
}
