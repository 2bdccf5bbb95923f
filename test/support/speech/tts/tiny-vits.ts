import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../../../../src/platform/random.js';
import { DataType, writeModel, type Graph, type Tensor } from '../asr/onnx-writer.js';

/**
 * Builds the smallest real model sherpa-onnx loads as a VITS voice, in the
 * form of its MMS-TTS exports (character tokens, blanks between them): inputs
 * x [1, N] int64, x_length [1], noise_scale [1], length_scale [1],
 * noise_scale_w [1] and, for several speakers, sid [1]; output y [1, 1, T];
 * metadata model_type, sample_rate, add_blank, n_speakers, language,
 * frontend, comment. The weights are generated from a seed, not trained:
 * each token becomes `length_scale * HOP` samples of a random projection of
 * its embedding (plus the speaker's), so the audio is noise whose length
 * follows the text and the speed, and whose samples differ per speaker.
 */

/** Samples per token at length scale 1. */
export const TINY_VITS_HOP = 256;
export const TINY_VITS_SAMPLE_RATE = 16_000;

/** Lower-case Vietnamese letters with their tone marks, digits, space and a little punctuation. */
const CHARACTERS = [...new Set([...(' abcdefghijklmnopqrstuvwxyzđ0123456789.,?!:' + 'àáảãạăằắẳẵặâầấẩẫậèéẻẽẹêềếểễệìíỉĩịòóỏõọôồốổỗộơờớởỡợùúủũụưừứửữựỳýỷỹỵ')])];

const float = (name: string, values: number[], dims: number[] = [values.length]): Tensor => ({ name, dims, data: Float32Array.from(values) });
const int64 = (name: string, values: number[], dims: number[] = [values.length]): Tensor => ({
  name,
  dims,
  data: BigInt64Array.from(values.map(BigInt)),
});

function weights(name: string, dims: number[], next: () => number, scale: number): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (next() * 2 - 1) * scale;
  return { name, dims, data };
}

/** Piper's symbols: pad, start, end, space, punctuation, and the IPA eSpeak NG writes (tone letters included). */
const PIPER_SYMBOLS = [
  ...new Set([
    ..."_^$ !'(),-.:;?",
    ...'abcdefghijklmnopqrstuvwxyz0123456789',
    ...'æçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʤʧʰʲʷˈˌːˑ˞ˠˤ˥˦˧˨˩̩̃βθχᵻⱱ',
  ]),
];

export interface TinyVitsOptions {
  /**
   * `mms` (default): character tokens, inputs x, x_length, noise_scale,
   * length_scale, noise_scale_w[, sid]. `piper`: eSpeak NG phonemes (needs
   * espeak-ng-data at synthesis), inputs input, input_lengths, scales[, sid],
   * comment "piper".
   */
  form?: 'mms' | 'piper';
  /** 0 or 1: one voice (no sid input); more: a sid input choosing a speaker embedding. */
  speakers?: number;
  seed?: number;
  hidden?: number;
  /** Metadata to add or replace (a test of a broken model drops or spoils some). */
  metadata?: Record<string, string | undefined>;
}

/** Writes model.onnx (Piper: vi_VN-tiny-x_low.onnx) and tokens.txt into `dir`; answers the folder. */
export function buildTinyVits(dir: string, opts: TinyVitsOptions = {}): string {
  const next = seededRandom(opts.seed ?? 20251125);
  const H = opts.hidden ?? 16;
  const speakers = opts.speakers ?? 0;
  const multi = speakers > 1;
  const piper = opts.form === 'piper';
  // Id 0 is the blank inserted between characters (MMS's pad token) or Piper's pad `_`.
  const vocab = piper ? PIPER_SYMBOLS : ['_', ...CHARACTERS];
  const V = vocab.length;

  const nodes: Graph['nodes'] = [];
  if (piper) {
    // Piper's interface, turned into the names the rest of the graph uses.
    nodes.push(
      { op: 'Identity', inputs: ['input'], outputs: ['x'] },
      { op: 'Identity', inputs: ['input_lengths'], outputs: ['x_length'] },
      { op: 'Slice', inputs: ['scales', 'at_0', 'at_1'], outputs: ['noise_scale'] },
      { op: 'Slice', inputs: ['scales', 'at_1', 'at_2'], outputs: ['length_scale'] },
      { op: 'Slice', inputs: ['scales', 'at_2', 'at_3'], outputs: ['noise_scale_w'] },
    );
  }
  nodes.push({ op: 'Gather', inputs: ['embedding', 'x'], outputs: ['tokens'], attributes: { axis: 0 } });
  let hidden = 'tokens';
  if (multi) {
    nodes.push(
      { op: 'Gather', inputs: ['speaker_embedding', 'sid'], outputs: ['speaker'], attributes: { axis: 0 } },
      { op: 'Unsqueeze', inputs: ['speaker', 'axis_1'], outputs: ['speaker_3d'] },
      { op: 'Add', inputs: ['tokens', 'speaker_3d'], outputs: ['voiced'] },
    );
    hidden = 'voiced';
  }
  nodes.push(
    { op: 'Transpose', inputs: [hidden], outputs: ['channels'], attributes: { perm: [0, 2, 1] } },
    // Samples per token: ceil(length_scale * HOP), as an int64 [1].
    { op: 'Mul', inputs: ['length_scale', 'hop'], outputs: ['per_token_f'] },
    { op: 'Ceil', inputs: ['per_token_f'], outputs: ['per_token_ceil'] },
    { op: 'Cast', inputs: ['per_token_ceil'], outputs: ['per_token'], attributes: { to: DataType.INT64 } },
    { op: 'Mul', inputs: ['x_length', 'per_token'], outputs: ['samples'] },
    { op: 'Concat', inputs: ['batch_and_hidden', 'samples'], outputs: ['sizes'], attributes: { axis: 0 } },
    { op: 'Resize', inputs: ['channels', '', '', 'sizes'], outputs: ['upsampled'], attributes: { mode: 'nearest' } },
    { op: 'Transpose', inputs: ['upsampled'], outputs: ['frames'], attributes: { perm: [0, 2, 1] } },
    { op: 'MatMul', inputs: ['frames', 'projection'], outputs: ['projected'] },
    // Bounded like audio (-1..1).
    { op: 'Sin', inputs: ['projected'], outputs: ['wave'] },
    // The noise scales shape the amplitude, so every input takes part in the output.
    { op: 'Mul', inputs: ['noise_scale', 'noise_scale_w'], outputs: ['noise'] },
    { op: 'Add', inputs: ['noise', 'amplitude_floor'], outputs: ['amplitude'] },
    { op: 'Mul', inputs: ['wave', 'amplitude'], outputs: ['scaled'] },
    { op: 'Transpose', inputs: ['scaled'], outputs: ['y'], attributes: { perm: [0, 2, 1] } },
  );

  const graph: Graph = {
    name: 'tiny_vits',
    nodes,
    inputs: [
      ...(piper
        ? [
            { name: 'input', elemType: DataType.INT64, shape: [1, 'N'] },
            { name: 'input_lengths', elemType: DataType.INT64, shape: [1] },
            { name: 'scales', elemType: DataType.FLOAT, shape: [3] },
          ]
        : [
            { name: 'x', elemType: DataType.INT64, shape: [1, 'N'] },
            { name: 'x_length', elemType: DataType.INT64, shape: [1] },
            { name: 'noise_scale', elemType: DataType.FLOAT, shape: [1] },
            { name: 'length_scale', elemType: DataType.FLOAT, shape: [1] },
            { name: 'noise_scale_w', elemType: DataType.FLOAT, shape: [1] },
          ]),
      ...(multi ? [{ name: 'sid', elemType: DataType.INT64, shape: [1] }] : []),
    ],
    outputs: [{ name: 'y', elemType: DataType.FLOAT, shape: [1, 1, 'T'] }],
    initializers: [
      weights('embedding', [V, H], next, 3),
      ...(multi ? [weights('speaker_embedding', [speakers, H], next, 3)] : []),
      weights('projection', [H, 1], next, 2),
      float('hop', [TINY_VITS_HOP]),
      float('amplitude_floor', [0.2]),
      int64('axis_1', [1]),
      int64('batch_and_hidden', [1, H]),
      ...(piper ? [int64('at_0', [0]), int64('at_1', [1]), int64('at_2', [2]), int64('at_3', [3])] : []),
    ],
  };

  const metadata: Record<string, string> = piper
    ? {
        model_type: 'vits',
        comment: 'piper (saola tiny VITS with generated weights, tests only)',
        language: 'Vietnamese',
        voice: 'vi',
        sample_rate: String(TINY_VITS_SAMPLE_RATE),
        add_blank: '0',
        n_speakers: String(multi ? speakers : 1),
      }
    : {
        model_type: 'vits',
        comment: 'saola tiny VITS with generated weights (tests only)',
        language: 'Vietnamese',
        sample_rate: String(TINY_VITS_SAMPLE_RATE),
        add_blank: '1',
        n_speakers: String(multi ? speakers : 1),
        frontend: 'characters',
        blank_id: '0',
        use_eos_bos: '0',
      };
  for (const [key, value] of Object.entries(opts.metadata ?? {})) {
    if (value === undefined) delete metadata[key];
    else metadata[key] = value;
  }

  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, piper ? 'vi_VN-tiny-x_low.onnx' : 'model.onnx'), writeModel(graph, metadata));
  // One "symbol id" per line; sherpa-onnx reads a line with only an id as the space.
  fs.writeFileSync(path.join(dir, 'tokens.txt'), vocab.map((s, i) => (s === ' ' ? `${i}` : `${s} ${i}`)).join('\n') + '\n');
  return dir;
}
