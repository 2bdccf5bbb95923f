import { lastErrorLine, locateFfmpeg, runProgram, withTempFile } from '../../../platform/media/ffmpeg.js';

/** Everything is recognised at 16 kHz mono, as every supported model expects. */
export const SAMPLE_RATE = 16_000;

/** 16 kHz mono float samples in shared memory, so worker threads read them without a copy. */
export interface Pcm {
  samples: Float32Array;
  seconds: number;
}

export type DecodeFailure = 'empty' | 'unreadable' | 'tooLong';

export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
  constructor(
    readonly reason: DecodeFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface AudioDecoder {
  /** `native` (ffmpeg on the PATH) or `npm` (@ffmpeg-installer/linux-x64). */
  readonly source: 'native' | 'npm';
  decode(audio: Buffer, opts: { maxSeconds: number; signal?: AbortSignal }): Promise<Pcm>;
}

/** Demuxers an upload may use: the formats we promise, and nothing that follows links (playlists, concat). */
const FORMATS = ['wav', 'mp3', 'mov,mp4,m4a,3gp,3g2,mj2', 'aac', 'ogg', 'matroska,webm', 'flac'];

/** Decodes any upload with the ffmpeg program: the upload goes to a temp file first (mp4 needs to seek). */
export class FfmpegDecoder implements AudioDecoder {
  private constructor(
    readonly binary: string,
    readonly source: 'native' | 'npm',
  ) {}

  /** Native ffmpeg when it is on the PATH (unless `npm` is asked for), else the npm-shipped binary. */
  static async locate(preference: 'auto' | 'native' | 'npm'): Promise<FfmpegDecoder> {
    const found = await locateFfmpeg(preference, 'SAOLA_ASR_FFMPEG');
    return new FfmpegDecoder(found.binary, found.source);
  }

  async decode(audio: Buffer, opts: { maxSeconds: number; signal?: AbortSignal }): Promise<Pcm> {
    if (audio.length === 0) throw new AudioDecodeError('empty', 'The body is empty: send the audio file as the request body');
    return withTempFile('saola-asr-', audio, async (input) => {
      // Decode one second past the limit: enough to tell "too long" without decoding an hour.
      const limit = opts.maxSeconds + 1;
      const args = [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-protocol_whitelist',
        'file',
        '-format_whitelist',
        FORMATS.join(','),
        '-i',
        input,
        '-t',
        String(limit),
        '-vn',
        '-ac',
        '1',
        '-ar',
        String(SAMPLE_RATE),
        '-f',
        'f32le',
        'pipe:1',
      ];
      let stdout: Buffer;
      try {
        ({ stdout } = await runProgram(this.binary, args, {
          signal: opts.signal,
          maxBuffer: Math.ceil(limit * SAMPLE_RATE * 4) + (1 << 20),
          timeoutMs: 10 * 60_000,
        }));
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const detail = lastErrorLine(err, input);
        throw new AudioDecodeError('unreadable', `The body is not a readable audio file${detail ? ` (${detail})` : ''}`);
      }
      const count = Math.floor(stdout.length / 4);
      if (count === 0) throw new AudioDecodeError('unreadable', 'The body holds no audio samples');
      const seconds = count / SAMPLE_RATE;
      if (seconds > opts.maxSeconds) {
        throw new AudioDecodeError('tooLong', `The audio is longer than ${opts.maxSeconds} s, the most this server accepts`);
      }
      const samples = new Float32Array(new SharedArrayBuffer(count * 4));
      new Uint8Array(samples.buffer).set(stdout.subarray(0, count * 4));
      return { samples, seconds };
    });
  }
}
