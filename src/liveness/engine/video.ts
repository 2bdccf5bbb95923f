import fs from 'node:fs/promises';
import { lastErrorLine, runProgram, uploadInputArgs, type Ffmpeg, type RunError } from '../../platform/media/ffmpeg.js';

/**
 * Reading an uploaded selfie video with the ffmpeg program, in one run with a
 * time limit: the stream header (container, duration, frame rate, size) and a
 * few frames per second at a reduced size as raw RGB. The caller holds the
 * upload in a private temp folder (`withTempFile`), where the frames are
 * written too.
 */

/** ffmpeg demuxers of the containers liveness accepts: mov/mp4, mkv/webm, avi. Nothing else is even opened. */
export const VIDEO_DEMUXERS = ['mov,mp4,m4a,3gp,3g2,mj2', 'matroska,webm', 'avi'];
/** File name extensions liveness accepts (spec: mov, mp4, mkv, webm; avi per issue 13). */
export const VIDEO_EXTENSIONS = ['mov', 'mp4', 'mkv', 'webm', 'avi'];

export interface VideoHeader {
  /** ffmpeg's demuxer name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  container: string;
  codec: string;
  seconds: number;
  fps: number;
  /** Displayed size (a rotated phone video's 90 degrees applied). */
  width: number;
  height: number;
}

export class VideoInputError extends Error {
  override name = 'VideoInputError';
}

/** Parses `ffmpeg -i`'s description of the input; undefined fields when ffmpeg printed none. */
export function parseHeader(stderr: string): Partial<VideoHeader> & { hasVideo: boolean } {
  const container = /^Input #0, (.+?), from /m.exec(stderr)?.[1];
  const d = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  const seconds = d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : undefined;
  const stream = /Stream #0:\d+.*?: Video: (.*)$/m.exec(stderr)?.[1];
  if (!stream) return { container, seconds, hasVideo: false };
  const codec = stream.split(/[ ,]/)[0];
  // The size is the first WxH after the pixel format (codec tags like "avc1 / 0x31637661" hold no "x" between digits).
  const size = /(?:^|[ ,])(\d{2,5})x(\d{2,5})(?=[ ,]|$)/.exec(stream);
  const rate = /(\d+(?:\.\d+)?)(k?) fps/.exec(stream) ?? /(\d+(?:\.\d+)?)(k?) tbr/.exec(stream);
  const fps = rate ? Number(rate[1]) * (rate[2] ? 1000 : 1) : undefined;
  let width = size ? Number(size[1]) : undefined;
  let height = size ? Number(size[2]) : undefined;
  // Phones store portrait video as landscape plus a rotation; ffmpeg turns the frames upright when decoding.
  const rot = /rotate\s*:\s*(-?\d+)/.exec(stderr)?.[1] ?? /rotation of (-?[\d.]+) degrees/.exec(stderr)?.[1];
  if (rot !== undefined && Math.abs(Math.round(Number(rot))) % 180 === 90 && width && height) [width, height] = [height, width];
  return { container, codec, seconds, fps, width, height, hasVideo: true };
}

export interface DecodedFrames {
  /** Frames one after another, RGB, width x height each, in shared memory (worker threads read them without a copy). */
  data: Uint8Array;
  width: number;
  height: number;
  count: number;
  /** Seconds between two frames. */
  interval: number;
}

/** The size frames are analysed at: the displayed size scaled so its long side is at most `side`, even numbers. */
export function frameSize(header: Pick<VideoHeader, 'width' | 'height'>, side: number): { width: number; height: number } {
  const scale = Math.min(1, side / Math.max(header.width, header.height));
  const even = (v: number) => Math.max(2, 2 * Math.round((v * scale) / 2));
  return { width: even(header.width), height: even(header.height) };
}

/** ffmpeg's scale expression for frameSize(): the displayed size (after a phone's rotation) scaled to at most `side`, even numbers. */
function scaleExpression(side: number): string {
  const even = (v: string) => `'max(2,2*round(${v}*min(1,${side}/max(iw,ih))/2))'`;
  return `scale=${even('iw')}:${even('ih')}:flags=area`;
}

/** ffmpeg's closing report (it prints it on success and on some failures): never the reason a stream failed. */
const REPORT_LINE = /^(frame=|video:|\[out#)/;

/** A video read by readVideo: its header, and its frames once the caller accepts the header. */
export interface VideoRead {
  header: VideoHeader;
  /** The decoded frames (their file is removed); throws VideoInputError for a stream that could not be decoded or is corrupted. */
  frames(): Promise<DecodedFrames>;
}

/**
 * Reads the header and decodes `fps` frames per second (at most `maxSeconds` of video) at the analysis size in
 * one ffmpeg run: each start of Debian's ffmpeg costs about 0.08 s of CPU (it links some 200 libraries), and a
 * check paid it twice. The scale is an ffmpeg expression equal to frameSize(); ffmpeg describes the input on
 * stderr before decoding, and writes the frames as raw RGB to a file beside the upload (in its private folder),
 * which is read straight into shared memory by `frames()` and removed: cheaper than a pipe for 20 MB. Decoding is single-threaded (the
 * server runs several requests at once on few cores). Throws VideoInputError for anything that is not a
 * readable video of an accepted container; the caller checks the header (length, frame rate, size) before
 * asking for the frames. A stream that yields fewer than half the frames its header promises is corrupted.
 */
export async function readVideo(ffmpeg: Ffmpeg, file: string, opts: { fps: number; side: number; maxSeconds: number; timeoutMs: number }): Promise<VideoRead> {
  const raw = `${file}.rgb`;
  const args = [
    ...uploadInputArgs(VIDEO_DEMUXERS, { quiet: false }),
    '-nostats',
    '-threads',
    '1',
    '-i',
    file,
    '-t',
    String(opts.maxSeconds),
    '-an',
    '-sn',
    '-dn',
    '-vf',
    `fps=${opts.fps},${scaleExpression(opts.side)}`,
    // An output cap: never more frames than the length allows.
    '-frames:v',
    String(Math.ceil(opts.maxSeconds * opts.fps) + 2),
    '-pix_fmt',
    'rgb24',
    '-f',
    'rawvideo',
    '-y',
    raw,
  ];
  let stderr: string;
  let failure: RunError | undefined;
  try {
    // stderr only (the frames go to the file): a damaged stream can make ffmpeg complain at length.
    ({ stderr } = await runProgram(ffmpeg.binary, args, { maxBuffer: 8 << 20, timeoutMs: opts.timeoutMs }));
  } catch (err) {
    failure = err as RunError;
    stderr = failure.stderr ?? '';
  }
  // The input's description ends where ffmpeg starts describing what it writes.
  const input = stderr.split(/^(?:Stream mapping:|Output #0)/m)[0];
  const h = parseHeader(input);
  const refuse = async (reason: string) => {
    await fs.rm(raw, { force: true });
    return new VideoInputError(reason);
  };
  const tooLong = failure?.killed === true && failure.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
  if (tooLong && !h.container) throw await refuse('Reading the video took too long');
  if (!h.container) throw await refuse(`The file is not a video in an accepted container (${VIDEO_EXTENSIONS.join(', ')})`);
  if (!h.hasVideo || !h.width || !h.height) throw await refuse('The file holds no video stream');
  if (h.seconds === undefined || !(h.seconds > 0)) throw await refuse('The video has no duration: empty or corrupted stream');
  if (!h.fps || !(h.fps > 0)) throw await refuse('The video has no frame rate: corrupted stream');
  const header = h as VideoHeader;
  const decoded = async (): Promise<DecodedFrames> => {
    if (tooLong) throw new VideoInputError('Decoding the video took too long');
    if (failure) {
      const reason = stderr
        .trim()
        .split('\n')
        .filter((l) => !REPORT_LINE.test(l.trim()))
        .join('\n');
      const detail = lastErrorLine({ stderr: reason }, file);
      throw new VideoInputError(`The video stream cannot be decoded${detail ? ` (${detail})` : ''}`);
    }
    const size = frameSize(header, opts.side);
    // The scale expression and frameSize() must agree, or every frame would be read askew.
    const written = /^Output #0[\s\S]*?Video: rawvideo.*?[ ,](\d+)x(\d+)[ ,]/m.exec(stderr);
    if (written && (Number(written[1]) !== size.width || Number(written[2]) !== size.height))
      throw new Error(`ffmpeg wrote ${written[1]}x${written[2]} frames where ${size.width}x${size.height} were expected`);
    return readFrames(raw, header, size, opts);
  };
  return {
    header,
    frames: async () => {
      try {
        return await decoded();
      } finally {
        await fs.rm(raw, { force: true });
      }
    },
  };
}

/** The raw frames ffmpeg wrote, into shared memory (worker threads read them without a copy). */
async function readFrames(
  raw: string,
  header: VideoHeader,
  { width, height }: { width: number; height: number },
  opts: { fps: number; maxSeconds: number },
): Promise<DecodedFrames> {
  const expected = Math.max(1, Math.floor(Math.min(header.seconds, opts.maxSeconds) * opts.fps));
  const frameBytes = width * height * 3;
  const fh = await fs.open(raw, 'r').catch(() => undefined);
  try {
    const size = fh ? (await fh.stat()).size : 0;
    const count = Math.min(expected + 1, Math.floor(size / frameBytes));
    if (count < Math.max(2, Math.ceil(expected / 2))) {
      throw new VideoInputError(`The video stream is corrupted: ${count} frames decoded where ${expected} were expected`);
    }
    const data = new Uint8Array(new SharedArrayBuffer(count * frameBytes));
    for (let at = 0; at < data.length;) {
      const { bytesRead } = await fh!.read(data, at, data.length - at, at);
      if (bytesRead === 0) throw new Error(`${raw} ended at ${at} of ${data.length} bytes`);
      at += bytesRead;
    }
    return { data, width, height, count, interval: 1 / opts.fps };
  } finally {
    await fh?.close();
  }
}

/** The frames of a video whose header needs no checking (evaluations, tests): readVideo, then its frames. */
export async function decodeFrames(ffmpeg: Ffmpeg, file: string, opts: { fps: number; side: number; maxSeconds: number; timeoutMs: number }): Promise<DecodedFrames> {
  return (await readVideo(ffmpeg, file, opts)).frames();
}
