/**
 * Offline static int8 quantisation of an ONNX model in QDQ form
 * (QuantizeLinear/DequantizeLinear pairs), written for the face models
 * (scripts/prepare-face-models.ts --int8 drives it). What it does:
 *
 * - weights of the chosen Conv nodes: int8, symmetric, per output channel
 *   (axis 0), optionally in 7 bits (`reduceRange`, so x86 CPUs without VNNI
 *   cannot saturate their 16-bit u8 x s8 sums); biases: int32 with scale
 *   input_scale x weight_scale[c];
 * - activations entering or leaving a quantised node: uint8, asymmetric,
 *   per tensor, from the ranges `calibrate` measured;
 * - the opset is raised to 13 (per-axis DequantizeLinear).
 *
 * onnxruntime's CPU provider then fuses DQ -> Conv -> Q into QLinearConv and
 * DQ -> Add -> Q into QLinearAdd. Nothing here is Python's onnxruntime
 * quantiser: it is a small re-implementation of the same published scheme.
 */
import * as ort from 'onnxruntime-node';
import { cloneModel, DT, graphOf, floatsOf, node, onnx, tensor, topoSort, writeModel, type Model, type Node, type Tensor } from './onnx-graph.js';

export interface Range {
  min: number;
  max: number;
}

/**
 * Runs the float model on every input and returns, for each listed tensor, the
 * uint8 range [min, max] to quantise it with. `minmax`: the extremes seen.
 * `mse`: a second pass fills a 2048-bin histogram per tensor and the range
 * minimising the expected squared error (values clipped outside, rounding
 * step^2/12 inside) is chosen, so rare outliers do not coarsen the step for
 * every other value.
 */
export async function calibrate(model: Model, tensors: string[], inputs: Float32Array[], shape: number[], method: 'minmax' | 'mse' = 'mse'): Promise<Map<string, Range>> {
  const probe = cloneModel(model);
  const graph = graphOf(probe);
  const existing = new Set(graph.output.map((o) => o.name));
  const inputNames = new Set(graph.input.map((i) => i.name));
  for (const name of tensors) {
    if (existing.has(name) || inputNames.has(name)) continue;
    graph.output.push(onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: DT.FLOAT } } }));
  }
  const session = await ort.InferenceSession.create(writeModel(probe), { intraOpNumThreads: 1, graphOptimizationLevel: 'basic' });
  const pass = async (visit: (name: string, values: Float32Array) => void) => {
    for (const data of inputs) {
      const feed = new ort.Tensor('float32', data, shape);
      const out = await session.run({ [session.inputNames[0]]: feed });
      for (const name of tensors) visit(name, (inputNames.has(name) ? feed.data : out[name].data) as Float32Array);
    }
  };
  const ranges = new Map<string, Range>(tensors.map((t) => [t, { min: Infinity, max: -Infinity }]));
  await pass((name, values) => {
    const r = ranges.get(name)!;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v < r.min) r.min = v;
      if (v > r.max) r.max = v;
    }
  });
  if (method === 'mse') {
    const BINS = 2048;
    const hists = new Map<string, Float64Array>(tensors.map((t) => [t, new Float64Array(BINS)]));
    await pass((name, values) => {
      const { min, max } = ranges.get(name)!;
      const h = hists.get(name)!;
      const k = max > min ? BINS / (max - min) : 0;
      for (let i = 0; i < values.length; i++) h[Math.min(BINS - 1, Math.floor((values[i] - min) * k))]++;
    });
    for (const name of tensors) ranges.set(name, mseRange(ranges.get(name)!, hists.get(name)!));
  }
  await session.release();
  return ranges;
}

/** The [lo, hi] (lo <= 0 <= hi, bin edges) with the least expected uint8 quantisation error for a histogram over [r.min, r.max]. */
function mseRange(r: Range, hist: Float64Array): Range {
  const bins = hist.length;
  const width = (r.max - r.min) / bins;
  if (!(width > 0)) return r;
  // Prefix sums of count, sum and sum of squares of the bin centres.
  const n = new Float64Array(bins + 1);
  const s1 = new Float64Array(bins + 1);
  const s2 = new Float64Array(bins + 1);
  for (let i = 0; i < bins; i++) {
    const c = r.min + (i + 0.5) * width;
    n[i + 1] = n[i] + hist[i];
    s1[i + 1] = s1[i] + hist[i] * c;
    s2[i + 1] = s2[i] + hist[i] * c * c;
  }
  const edge = (i: number) => r.min + i * width;
  const zeroEdge = Math.max(0, Math.min(bins, Math.round(-r.min / width)));
  // Candidate lower edges from 0 down to min, upper edges from 0 up to max (about 256 each).
  const los: number[] = [];
  const his: number[] = [];
  const stepLo = Math.max(1, Math.floor(zeroEdge / 256));
  const stepHi = Math.max(1, Math.floor((bins - zeroEdge) / 256));
  for (let i = zeroEdge; i >= 0; i -= stepLo) los.push(i);
  if (los.at(-1) !== 0) los.push(0);
  for (let i = zeroEdge; i <= bins; i += stepHi) his.push(i);
  if (his.at(-1) !== bins) his.push(bins);
  let best = { err: Infinity, lo: 0, hi: bins };
  for (const lo of los) {
    const a = Math.min(r.min < 0 ? edge(lo) : 0, 0);
    // Values below `a` are clipped to it: sum (v - a)^2.
    const below = s2[lo] - 2 * a * s1[lo] + a * a * n[lo];
    for (const hi of his) {
      if (hi <= lo) continue;
      const b = Math.max(edge(hi), 0);
      const above = s2[bins] - s2[hi] - 2 * b * (s1[bins] - s1[hi]) + b * b * (n[bins] - n[hi]);
      const step = (b - a) / 255;
      const err = below + above + ((n[hi] - n[lo]) * step * step) / 12;
      if (err < best.err) best = { err, lo, hi };
    }
  }
  return { min: Math.min(0, edge(best.lo)), max: Math.max(0, edge(best.hi)) };
}

export interface QuantizeOptions {
  /** Node op types to quantise (Conv and Add are supported). */
  ops: ReadonlySet<string>;
  /** Nodes (by output name) to leave in float even if their op type is listed. */
  keepFloat?: ReadonlySet<string>;
  /** 7-bit weights (range -64..63) instead of 8-bit. */
  reduceRange: boolean;
  /** Added to a quantised Conv's float bias (by output name) before it is quantised: see `correctBiases`. */
  biasShift?: ReadonlyMap<string, Float32Array>;
}

/** The activation tensors a QDQ model of `model` needs ranges for. */
export function activationsToQuantize(model: Model, opts: QuantizeOptions): string[] {
  const graph = graphOf(model);
  const inits = new Set(graph.initializer.map((t) => t.name));
  const out = new Set<string>();
  for (const n of quantisedNodes(model, opts)) {
    const acts = n.opType === 'Conv' ? [n.input[0]] : n.input.filter((i) => !inits.has(i));
    for (const a of acts) out.add(a);
    out.add(n.output[0]);
  }
  return [...out];
}

function quantisedNodes(model: Model, opts: QuantizeOptions): Node[] {
  return (graphOf(model).node as Node[]).filter((n) => opts.ops.has(n.opType!) && !opts.keepFloat?.has(n.output[0]));
}

function uint8Params(r: Range): { scale: number; zeroPoint: number } {
  const min = Math.min(0, r.min);
  const max = Math.max(0, r.max);
  const scale = max > min ? (max - min) / 255 : 1;
  const zeroPoint = Math.max(0, Math.min(255, Math.round(-min / scale)));
  return { scale, zeroPoint };
}

/** Returns a new model in QDQ form; `model` is not changed. */
export function quantize(source: Model, ranges: Map<string, Range>, opts: QuantizeOptions): Model {
  const model = cloneModel(source);
  const graph = graphOf(model);
  for (const o of model.opsetImport) if (!o.domain || o.domain === 'ai.onnx') o.version = Math.max(Number(o.version), 13);
  const inits = new Map(graph.initializer.map((t) => [t.name!, t as Tensor]));
  const nodes = quantisedNodes(model, opts);
  const added: Node[] = [];
  const newInits: Tensor[] = [];
  const actParams = new Map<string, { scale: number; zeroPoint: number }>();

  // One Q -> DQ pair per activation tensor; every consumer reads the DQ output.
  const qdq = new Map<string, string>();
  for (const name of activationsToQuantize(model, opts)) {
    const r = ranges.get(name);
    if (!r || !Number.isFinite(r.min)) throw new Error(`no calibration range for ${name}`);
    const p = uint8Params(r);
    actParams.set(name, p);
    newInits.push(tensor(`${name}_scale`, DT.FLOAT, [], new Uint8Array(Float32Array.of(p.scale).buffer)));
    newInits.push(tensor(`${name}_zp`, DT.UINT8, [], Uint8Array.of(p.zeroPoint)));
    added.push(node('QuantizeLinear', [name, `${name}_scale`, `${name}_zp`], [`${name}_q`], `${name}_Q`));
    added.push(node('DequantizeLinear', [`${name}_q`, `${name}_scale`, `${name}_zp`], [`${name}_dq`], `${name}_DQ`));
    qdq.set(name, `${name}_dq`);
  }
  // Rewire consumers (not the Q nodes themselves) to the dequantised copies.
  for (const n of graph.node as Node[]) n.input = n.input.map((i) => qdq.get(i) ?? i);
  const graphOutputs = new Set(graph.output.map((o) => o.name));
  for (const name of qdq.keys()) {
    if (graphOutputs.has(name)) throw new Error(`cannot quantise graph output ${name}`);
  }

  // Conv weights (per channel, int8) and biases (int32).
  const maxQ = opts.reduceRange ? 63 : 127;
  for (const n of nodes) {
    if (n.opType !== 'Conv') continue;
    const xName = n.input[0].replace(/_dq$/, '');
    const xScale = actParams.get(xName)!.scale;
    const w = inits.get(n.input[1]);
    if (!w) throw new Error(`Conv ${n.output[0]}: weight is not an initializer`);
    const wf = floatsOf(w);
    const dims = w.dims.map(Number);
    const channels = dims[0];
    const per = wf.length / channels;
    const scales = new Float32Array(channels);
    const wq = new Int8Array(wf.length);
    for (let c = 0; c < channels; c++) {
      let m = 0;
      for (let i = 0; i < per; i++) m = Math.max(m, Math.abs(wf[c * per + i]));
      const s = m > 0 ? m / maxQ : 1;
      scales[c] = s;
      for (let i = 0; i < per; i++) wq[c * per + i] = Math.max(-maxQ - 1, Math.min(maxQ, Math.round(wf[c * per + i] / s)));
    }
    const wName = n.input[1];
    newInits.push(tensor(`${wName}_q`, DT.INT8, dims, new Uint8Array(wq.buffer)));
    newInits.push(tensor(`${wName}_scale`, DT.FLOAT, [channels], new Uint8Array(scales.buffer)));
    newInits.push(tensor(`${wName}_zp`, DT.INT8, [channels], new Uint8Array(channels)));
    added.push(node('DequantizeLinear', [`${wName}_q`, `${wName}_scale`, `${wName}_zp`], [`${wName}_dq`], `${wName}_DQ`, { axis: 0 }));
    const inputs = [n.input[0], `${wName}_dq`];
    if (n.input[2]) {
      const bName = n.input[2];
      const bf = floatsOf(inits.get(bName)!);
      const shift = opts.biasShift?.get(n.output[0]);
      if (shift) for (let c = 0; c < channels; c++) bf[c] += shift[c];
      const bScales = new Float32Array(channels);
      const bq = new Int32Array(channels);
      for (let c = 0; c < channels; c++) {
        bScales[c] = xScale * scales[c];
        bq[c] = Math.round(bf[c] / bScales[c]);
      }
      newInits.push(tensor(`${bName}_q`, DT.INT32, [channels], new Uint8Array(bq.buffer)));
      newInits.push(tensor(`${bName}_scale`, DT.FLOAT, [channels], new Uint8Array(bScales.buffer)));
      newInits.push(tensor(`${bName}_zp`, DT.INT32, [channels], new Uint8Array(channels * 4)));
      added.push(node('DequantizeLinear', [`${bName}_q`, `${bName}_scale`, `${bName}_zp`], [`${bName}_dq`], `${bName}_DQ`, { axis: 0 }));
      inputs.push(`${bName}_dq`);
    }
    n.input = inputs;
  }

  // Drop float initializers nobody reads any more, then order the graph.
  const all = [...added, ...(graph.node as Node[])];
  const used = new Set(all.flatMap((n) => n.input));
  graph.initializer = [...graph.initializer, ...newInits].filter((t) => used.has(t.name!));
  graph.node = topoSort(all, new Set([...graph.input.map((i) => i.name!), ...graph.initializer.map((t) => t.name!)]));
  graph.valueInfo = [];
  return model;
}

/** Per-channel means of NCHW tensors over batch and space, summed over the inputs. */
async function channelMeans(model: Model, tensors: string[], inputs: Float32Array[], shape: number[]): Promise<Map<string, Float64Array>> {
  const probe = cloneModel(model);
  for (const name of tensors) graphOf(probe).output.push(onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: DT.FLOAT } } }));
  // 'basic' keeps DQ -> Conv -> Q unfused: the float Conv sees exactly the dequantised values.
  const session = await ort.InferenceSession.create(writeModel(probe), { intraOpNumThreads: 1, graphOptimizationLevel: 'basic' });
  const sums = new Map<string, Float64Array>();
  for (const data of inputs) {
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', data, shape) });
    for (const name of tensors) {
      const t = out[name];
      const channels = Number(t.dims[1]);
      const plane = t.data.length / channels;
      const values = t.data as Float32Array;
      const acc = sums.get(name) ?? new Float64Array(channels);
      for (let c = 0; c < channels; c++) {
        let sum = 0;
        for (let i = c * plane; i < (c + 1) * plane; i++) sum += values[i];
        acc[c] += sum / plane / inputs.length;
      }
      sums.set(name, acc);
    }
  }
  await session.release();
  return sums;
}

/**
 * Empirical bias correction (Nagel et al. 2019, "Data-Free Quantization",
 * section 4.2, here measured on the calibration faces): quantising weights and
 * activations shifts the mean of each Conv's output channels, most of all in
 * depthwise layers. Layer by layer, in graph order, the quantised model's
 * channel means are compared with the float model's and the difference is
 * added to that Conv's bias. Returns the shifts to pass as `biasShift`.
 */
export async function correctBiases(
  model: Model,
  ranges: Map<string, Range>,
  opts: QuantizeOptions,
  inputs: Float32Array[],
  shape: number[],
): Promise<Map<string, Float32Array>> {
  const convs = quantisedNodes(model, opts).filter((n) => n.opType === 'Conv' && n.input[2]);
  const target = await channelMeans(
    model,
    convs.map((n) => n.output[0]),
    inputs,
    shape,
  );
  const shifts = new Map<string, Float32Array>();
  for (const conv of convs) {
    const name = conv.output[0];
    const q = quantize(model, ranges, { ...opts, biasShift: shifts });
    const got = (await channelMeans(q, [name], inputs, shape)).get(name)!;
    const want = target.get(name)!;
    shifts.set(
      name,
      Float32Array.from(want, (w, c) => w - got[c]),
    );
  }
  return shifts;
}
