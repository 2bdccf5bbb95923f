/**
 * Small ONNX graph helpers for offline model preparation (npm `onnx-proto`
 * reads and writes the ModelProto), and the exact PRelu rewrite the face
 * embedding net gets (scripts/prepare-face-models.ts).
 */
import onnxProto from 'onnx-proto';

export const { onnx } = onnxProto;
export type Model = InstanceType<typeof onnx.ModelProto>;
export type Tensor = InstanceType<typeof onnx.TensorProto>;
export type Node = InstanceType<typeof onnx.NodeProto>;
export const DT = onnx.TensorProto.DataType;

export function readModel(bytes: Uint8Array): Model {
  return onnx.ModelProto.decode(bytes);
}

export function writeModel(model: Model): Uint8Array {
  return onnx.ModelProto.encode(model).finish();
}

/** A deep copy (through the wire format). */
export function cloneModel(model: Model): Model {
  return readModel(writeModel(model));
}

/** The graph of a model (throws when there is none). */
export function graphOf(model: Model): InstanceType<typeof onnx.GraphProto> {
  if (!model.graph) throw new Error('model has no graph');
  return model.graph as InstanceType<typeof onnx.GraphProto>;
}

/** Float values of an initializer (raw_data or float_data), as a fresh copy. */
export function floatsOf(t: Tensor): Float32Array {
  if (t.dataType !== (DT.FLOAT as number)) throw new Error(`initializer ${t.name} is not float32`);
  if (t.rawData && t.rawData.length > 0) {
    const copy = new Uint8Array(t.rawData);
    return new Float32Array(copy.buffer, copy.byteOffset, copy.length / 4);
  }
  return Float32Array.from(t.floatData);
}

export function tensor(name: string, dataType: number, dims: number[], bytes: Uint8Array): Tensor {
  return onnx.TensorProto.create({ name, dataType, dims, rawData: bytes });
}

export function floatTensor(name: string, dims: number[], values: Float32Array): Tensor {
  return tensor(name, DT.FLOAT, dims, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

type AttrValue = number | number[];

export function node(opType: string, input: string[], output: string[], name: string, attrs: Record<string, AttrValue> = {}): Node {
  const attribute = Object.entries(attrs).map(([key, v]) =>
    Array.isArray(v)
      ? onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.INTS, ints: v })
      : onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.INT, i: v }),
  );
  return onnx.NodeProto.create({ opType, input, output, name, attribute });
}

/** Orders nodes so each comes after the producers of its inputs. */
export function topoSort(nodes: Node[], available: Iterable<string>): Node[] {
  const have = new Set(available);
  const pending = [...nodes];
  const out: Node[] = [];
  while (pending.length > 0) {
    const i = pending.findIndex((n) => n.input.every((x) => !x || have.has(x)));
    if (i < 0) throw new Error(`graph has a cycle or a missing input near ${pending[0].name}`);
    const [n] = pending.splice(i, 1);
    out.push(n);
    for (const o of n.output) have.add(o);
  }
  return out;
}

/**
 * Rewrites every PRelu(x, a) with a per-channel slope into
 *
 *     y = x + (1 - a) * Relu(-x)
 *
 * as two depthwise 1x1 convolutions: Relu(Conv(x, w = -1)), then
 * Conv(., w = 1 - a) + x. It is the same function (x >= 0: x; x < 0:
 * x - (1 - a) x = a x), but onnxruntime's CPU provider runs these
 * convolutions in its blocked NCHWc layout with the Relu and the Add fused,
 * while PRelu has no NCHWc kernel: every PRelu cost a slow broadcast plus a
 * reorder out of and back into the blocked layout. Only PRelus whose input
 * is 4-D NCHW with a slope of shape [C, 1, 1] (or [1, C, 1, 1]) are changed;
 * returns how many were.
 */
export function rewritePRelu(model: Model): number {
  const graph = graphOf(model);
  const inits = new Map(graph.initializer.map((t) => [t.name!, t as Tensor]));
  const nodes: Node[] = [];
  let rewritten = 0;
  for (const n of graph.node as Node[]) {
    const slope = n.opType === 'PRelu' ? inits.get(n.input[1]) : undefined;
    const dims = slope?.dims.map(Number) ?? [];
    const perChannel = dims.length >= 3 && dims.slice(-2).every((d) => d === 1) && dims.slice(0, -3).every((d) => d === 1);
    if (!slope || !perChannel) {
      nodes.push(n);
      continue;
    }
    const a = floatsOf(slope);
    const channels = a.length;
    const [x] = n.input;
    const y = n.output[0];
    graph.initializer.push(floatTensor(`${y}_prelu_neg`, [channels, 1, 1, 1], new Float32Array(channels).fill(-1)));
    graph.initializer.push(
      floatTensor(
        `${y}_prelu_gain`,
        [channels, 1, 1, 1],
        Float32Array.from(a, (v) => 1 - v),
      ),
    );
    const dw = { group: channels, kernel_shape: [1, 1] };
    nodes.push(node('Conv', [x, `${y}_prelu_neg`], [`${y}_prelu_negx`], `${y}_prelu_NegConv`, dw));
    nodes.push(node('Relu', [`${y}_prelu_negx`], [`${y}_prelu_relu`], `${y}_prelu_Relu`));
    nodes.push(node('Conv', [`${y}_prelu_relu`, `${y}_prelu_gain`], [`${y}_prelu_scaled`], `${y}_prelu_GainConv`, dw));
    nodes.push(node('Add', [`${y}_prelu_scaled`, x], [y], `${y}_prelu_Add`));
    rewritten++;
  }
  graph.node = nodes;
  const used = new Set(nodes.flatMap((n) => n.input));
  graph.initializer = graph.initializer.filter((t) => used.has(t.name!));
  return rewritten;
}
