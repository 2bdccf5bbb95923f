import { lastErrorLine, runProgram, type Ffmpeg, type RunError } from '../../platform/media/ffmpeg.js';

/**
 * Reading an uploaded selfie video with the ffmpeg program: the stream header
 * first (container, duration, frame rate, size), then a few frames per second
 * at a reduced size as raw RGB. Both calls have a time limit; the caller
 * holds the upload in a private temp file (`withTempFile`).
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

const common = (file: string) => ['-nostdin', '-hide_banner', '-protocol_whitelist', 'file', '-format_whitelist', VIDEO_DEMUXERS.join(','), '-i', file];

/** The stream header, read without decoding. Throws VideoInputError for anything that is not a readable video of an accepted container. */
export async function readHeader(ffmpeg: Ffmpeg, file: string, timeoutMs: number): Promise<VideoHeader> {
  let stderr: string;
  try {
    // With no output ffmpeg prints the input's description and exits 1: that exit is the normal case here.
    ({ stderr } = await runProgram(ffmpeg.binary, common(file), { maxBuffer: 1 << 20, timeoutMs }));
  } catch (err) {
    const e = err as RunError;
    if (e.killed) throw new VideoInputError('Reading the video took too long');
    stderr = e.stderr ?? '';
  }
  const h = parseHeader(stderr);
  if (!h.container) throw new VideoInputError(`The file is not a video in an accepted container (${VIDEO_EXTENSIONS.join(', ')})`);
  if (!h.hasVideo || !h.width || !h.height) throw new VideoInputError('The file holds no video stream');
  if (h.seconds === undefined || !(h.seconds > 0)) throw new VideoInputError('The video has no duration: empty or corrupted stream');
  if (!h.fps || !(h.fps > 0)) throw new VideoInputError('The video has no frame rate: corrupted stream');
  return h as VideoHeader;
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

/**
 * Decodes `fps` frames per second (at most `maxSeconds` of video) at the
 * analysis size, single-threaded (the server runs several at once). A stream
 * that yields fewer than half the frames its header promises is corrupted.
 */
export async function decodeFrames(
  ffmpeg: Ffmpeg,
  file: string,
  header: VideoHeader,
  opts: { fps: number; side: number; maxSeconds: number; timeoutMs: number },
): Promise<DecodedFrames> {
  const { width, height } = frameSize(header, opts.side);
  const seconds = Math.min(header.seconds, opts.maxSeconds);
  const expected = Math.max(1, Math.floor(seconds * opts.fps));
  const frameBytes = width * height * 3;
  const args = [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    VIDEO_DEMUXERS.join(','),
    // One decoding thread: the server runs several requests at once on few cores.
    '-threads',
    '1',
    '-i',
    file,
    '-t',
    String(seconds),
    '-an',
    '-sn',
    '-dn',
    '-vf',
    `fps=${opts.fps},scale=${width}:${height}:flags=area`,
    '-pix_fmt',
    'rgb24',
    '-f',
    'rawvideo',
    'pipe:1',
  ];
  let stdout: Buffer;
  try {
    ({ stdout } = await runProgram(ffmpeg.binary, args, { maxBuffer: (expected + 2) * frameBytes + (1 << 20), timeoutMs: opts.timeoutMs }));
  } catch (err) {
    const e = err as RunError;
    if (e.killed) throw new VideoInputError('Decoding the video took too long');
    const detail = lastErrorLine(err, file);
    throw new VideoInputError(`The video stream cannot be decoded${detail ? ` (${detail})` : ''}`);
  }
  const count = Math.min(expected + 1, Math.floor(stdout.length / frameBytes));
  if (count < Math.max(2, Math.ceil(expected / 2))) {
    throw new VideoInputError(`The video stream is corrupted: ${count} frames decoded where ${expected} were expected`);
  }
  const data = new Uint8Array(new SharedArrayBuffer(count * frameBytes));
  data.set(stdout.subarray(0, count * frameBytes));
  return { data, width, height, count, interval: 1 / opts.fps };
}
