import fs from 'node:fs';
import path from 'node:path';
import { DataType, writeModel, type Graph, type Tensor } from './onnx-writer.js';
import { seededRandom } from '../../../../src/platform/random.js';

/**
 * Builds the smallest real model sherpa-onnx can load as an offline
 * transducer (icefall's encoder/decoder/joiner interface): 80-dim fbank
 * frames, subsampling by 4, a stateless decoder with context size 2 and a
 * joiner over a Vietnamese syllable vocabulary. The weights are generated
 * from a seed, not trained: it exercises loading, feature extraction,
 * encoder/decoder/joiner shapes, greedy search, token mapping and timing
 * honestly, and its transcripts are meaningless.
 */

const FEATURE_DIM = 80;
const SUBSAMPLING = 4;
const CONTEXT_SIZE = 2;

/** Common Vietnamese syllables, as BPE-style word pieces. */
export const TINY_SYLLABLES = (
  'xin chào tôi bạn anh chị em là có không một hai ba bốn năm sáu bảy tám chín mười ' +
  'người nhà đi về ăn uống nói nghe đọc viết học làm việc ngày đêm trời nước đất ' +
  'hà nội sài gòn việt nam được cảm ơn rất vui gặp hôm nay mai đẹp quá muốn đặt vé máy bay'
).split(' ');

function weights(name: string, dims: number[], next: () => number, scale: number): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (next() * 2 - 1) * scale;
  return { name, dims, data };
}

const int64 = (name: string, values: number[], dims: number[] = [values.length]): Tensor => ({
  name,
  dims,
  data: BigInt64Array.from(values.map(BigInt)),
});

export interface TinyModelFiles {
  dir: string;
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
}

/** Writes encoder.onnx, decoder.onnx, joiner.onnx and tokens.txt into `dir`. */
export function buildTinyTransducer(dir: string, opts: { seed?: number; hidden?: number } = {}): TinyModelFiles {
  const next = seededRandom(opts.seed ?? 20250420);
  const C = opts.hidden ?? 64;
  const vocab = ['<blk>', '<unk>', ...TINY_SYLLABLES.map((s) => `▁${s}`)];
  const V = vocab.length;
  const stacked = FEATURE_DIM * SUBSAMPLING;

  const encoder: Graph = {
    name: 'tiny_encoder',
    inputs: [
      { name: 'x', elemType: DataType.FLOAT, shape: ['N', 'T', FEATURE_DIM] },
      { name: 'x_lens', elemType: DataType.INT64, shape: ['N'] },
    ],
    outputs: [
      { name: 'encoder_out', elemType: DataType.FLOAT, shape: ['N', 'T_out', C] },
      { name: 'encoder_out_lens', elemType: DataType.INT64, shape: ['N'] },
    ],
    initializers: [
      int64('four', [SUBSAMPLING], []),
      int64('one', [1], []),
      int64('zero_1d', [0]),
      int64('axis_time', [1]),
      int64('axes_0', [0]),
      int64('stack_shape', [0, -1, stacked]),
      { name: 'feat_shift', dims: [], data: Float32Array.of(8) },
      { name: 'feat_scale', dims: [], data: Float32Array.of(0.25) },
      weights('w1', [stacked, C], next, Math.sqrt(3 / stacked) * 2),
      weights('b1', [C], next, 0.1),
      weights('w2', [C, C], next, Math.sqrt(3 / C) * 2),
      weights('b2', [C], next, 0.1),
    ],
    nodes: [
      // Frames are stacked four at a time: the subsampling of a real encoder, as a reshape.
      { op: 'Shape', inputs: ['x'], outputs: ['x_shape'] },
      { op: 'Gather', inputs: ['x_shape', 'one'], outputs: ['t'], attributes: { axis: 0 } },
      { op: 'Div', inputs: ['t', 'four'], outputs: ['t_out'] },
      { op: 'Mul', inputs: ['t_out', 'four'], outputs: ['t_used'] },
      { op: 'Unsqueeze', inputs: ['t_used', 'axes_0'], outputs: ['t_used_1d'] },
      { op: 'Slice', inputs: ['x', 'zero_1d', 't_used_1d', 'axis_time'], outputs: ['x_used'] },
      { op: 'Add', inputs: ['x_used', 'feat_shift'], outputs: ['x_shifted'] },
      { op: 'Mul', inputs: ['x_shifted', 'feat_scale'], outputs: ['x_norm'] },
      { op: 'Reshape', inputs: ['x_norm', 'stack_shape'], outputs: ['x_stacked'] },
      { op: 'MatMul', inputs: ['x_stacked', 'w1'], outputs: ['h1'] },
      { op: 'Add', inputs: ['h1', 'b1'], outputs: ['h2'] },
      { op: 'Relu', inputs: ['h2'], outputs: ['h3'] },
      { op: 'MatMul', inputs: ['h3', 'w2'], outputs: ['h4'] },
      { op: 'Add', inputs: ['h4', 'b2'], outputs: ['h5'] },
      { op: 'Tanh', inputs: ['h5'], outputs: ['encoder_out'] },
      { op: 'Div', inputs: ['x_lens', 'four'], outputs: ['encoder_out_lens'] },
    ],
  };

  const decoder: Graph = {
    name: 'tiny_decoder',
    inputs: [{ name: 'y', elemType: DataType.INT64, shape: ['N', CONTEXT_SIZE] }],
    outputs: [{ name: 'decoder_out', elemType: DataType.FLOAT, shape: ['N', C] }],
    initializers: [weights('embedding', [V, C], next, 1), int64('flat_shape', [0, -1]), weights('wd', [CONTEXT_SIZE * C, C], next, Math.sqrt(3 / (CONTEXT_SIZE * C)))],
    nodes: [
      { op: 'Gather', inputs: ['embedding', 'y'], outputs: ['emb'], attributes: { axis: 0 } },
      { op: 'Reshape', inputs: ['emb', 'flat_shape'], outputs: ['emb_flat'] },
      { op: 'MatMul', inputs: ['emb_flat', 'wd'], outputs: ['d1'] },
      { op: 'Relu', inputs: ['d1'], outputs: ['decoder_out'] },
    ],
  };

  const joinerBias = weights('bj', [V], next, 0.5);
  (joinerBias.data as Float32Array)[0] = 3.5; // blank wins on most frames, as in a trained model
  (joinerBias.data as Float32Array)[1] = -100; // never <unk>
  const joiner: Graph = {
    name: 'tiny_joiner',
    inputs: [
      { name: 'encoder_out', elemType: DataType.FLOAT, shape: ['N', C] },
      { name: 'decoder_out', elemType: DataType.FLOAT, shape: ['N', C] },
    ],
    outputs: [{ name: 'logit', elemType: DataType.FLOAT, shape: ['N', V] }],
    initializers: [weights('wj', [C, V], next, Math.sqrt(3 / C) * 3), joinerBias],
    nodes: [
      { op: 'Add', inputs: ['encoder_out', 'decoder_out'], outputs: ['j1'] },
      { op: 'Tanh', inputs: ['j1'], outputs: ['j2'] },
      { op: 'MatMul', inputs: ['j2', 'wj'], outputs: ['j3'] },
      { op: 'Add', inputs: ['j3', 'bj'], outputs: ['logit'] },
    ],
  };

  const note = 'Saola tiny transducer: generated weights, not trained; transcripts are meaningless';
  fs.mkdirSync(dir, { recursive: true });
  const files: TinyModelFiles = {
    dir,
    encoder: path.join(dir, 'encoder.onnx'),
    decoder: path.join(dir, 'decoder.onnx'),
    joiner: path.join(dir, 'joiner.onnx'),
    tokens: path.join(dir, 'tokens.txt'),
  };
  fs.writeFileSync(files.encoder, writeModel(encoder, { comment: note }));
  fs.writeFileSync(files.decoder, writeModel(decoder, { vocab_size: String(V), context_size: String(CONTEXT_SIZE), comment: note }));
  fs.writeFileSync(files.joiner, writeModel(joiner, { comment: note }));
  fs.writeFileSync(files.tokens, vocab.map((t, i) => `${t} ${i}`).join('\n') + '\n');
  return files;
}
