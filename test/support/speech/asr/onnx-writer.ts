/**
 * A minimal ONNX (protobuf) writer: enough of onnx.proto to write small
 * models whose graphs use standard operators, with initializers and metadata.
 * Tests use it to build real sherpa-onnx models with generated weights.
 */

const enum Wire {
  Varint = 0,
  Bytes = 2,
  Fixed32 = 5,
}

class ProtoWriter {
  private readonly chunks: Buffer[] = [];

  private varint(value: bigint | number): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.chunks.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: Wire): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, Wire.Varint);
    this.varint(value);
    return this;
  }

  bytes(field: number, value: Buffer | Uint8Array): this {
    this.tag(field, Wire.Bytes);
    this.varint(value.length);
    this.chunks.push(Buffer.from(value));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, Wire.Fixed32);
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.chunks.push(b);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export const DataType = { FLOAT: 1, INT64: 7 } as const;

export interface Tensor {
  name: string;
  dims: number[];
  /** FLOAT tensors take a Float32Array, INT64 tensors a BigInt64Array. */
  data: Float32Array | BigInt64Array;
}

export interface ValueInfo {
  name: string;
  elemType: number;
  /** A number is a fixed size; a string names a dynamic dimension. */
  shape: (number | string)[];
}

export type AttributeValue = number | string | number[] | { ints: number[] } | Tensor;

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, AttributeValue>;
}

export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Tensor[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

function tensorProto(t: Tensor): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.data instanceof Float32Array ? DataType.FLOAT : DataType.INT64);
  w.string(8, t.name);
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return w;
}

function valueInfoProto(v: ValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, v.elemType).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

function attributeProto(name: string, value: AttributeValue): ProtoWriter {
  const w = new ProtoWriter().string(1, name);
  if (typeof value === 'number') {
    return Number.isInteger(value) ? w.int(3, value).int(20, 2) : w.float(2, value).int(20, 1);
  }
  if (typeof value === 'string') return w.string(4, value).int(20, 3);
  if (Array.isArray(value)) {
    for (const i of value) w.int(8, i);
    return w.int(20, 7);
  }
  if ('ints' in value) {
    for (const i of value.ints) w.int(8, i);
    return w.int(20, 7);
  }
  return w.message(5, tensorProto(value)).int(20, 4);
}

/** Serialises an ONNX model (IR version 8, default opset 17) with string metadata. */
export function writeModel(graph: Graph, metadata: Record<string, string> = {}, producer = 'saola-tests'): Buffer {
  const g = new ProtoWriter();
  graph.nodes.forEach((n, i) => {
    const node = new ProtoWriter();
    for (const input of n.inputs) node.string(1, input);
    for (const output of n.outputs) node.string(2, output);
    node.string(3, `${n.op.toLowerCase()}_${i}`);
    node.string(4, n.op);
    for (const [name, value] of Object.entries(n.attributes ?? {})) node.message(5, attributeProto(name, value));
    g.message(1, node);
  });
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensorProto(t));
  for (const v of graph.inputs) g.message(11, valueInfoProto(v));
  for (const v of graph.outputs) g.message(12, valueInfoProto(v));

  const model = new ProtoWriter().int(1, 8).string(2, producer).string(3, '1').message(7, g);
  model.message(8, new ProtoWriter().string(1, '').int(2, 17));
  for (const [key, value] of Object.entries(metadata)) model.message(14, new ProtoWriter().string(1, key).string(2, value));
  return model.finish();
}
