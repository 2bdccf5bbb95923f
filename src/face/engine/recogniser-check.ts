/**
 * Checks a recogniser in a process of its own (`saola models add face` runs
 * it as a child: onnxruntime may end the whole process on a malformed graph).
 * Argument: JSON {file, manifest, testFace}. Prints one JSON line: {ok: true,
 * described, norm} or {ok: false, reason}.
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import {
  CROP_SIZE,
  describeRecogniser,
  embedCrop,
  recogniserInput,
  RecogniserError,
  recogniserSession,
  type RecogniserManifest,
  type RecogniserSpec,
} from './recogniser.js';
import type { RgbImage } from './image.js';

async function check(args: { file: string; manifest: RecogniserManifest; testFace: string }): Promise<Record<string, unknown>> {
  let session: ort.InferenceSession;
  try {
    session = await recogniserSession(fs.readFileSync(args.file));
  } catch (err) {
    throw new RecogniserError(`onnxruntime cannot load it as an ONNX graph: ${(err as Error).message.split('\n')[0]}`);
  }
  const described = describeRecogniser(session.inputMetadata, session.outputMetadata, args.manifest);
  const spec: RecogniserSpec = { name: 'candidate', file: args.file, sha256: '', ...described };
  const { data, info } = await sharp(args.testFace).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== CROP_SIZE || info.height !== CROP_SIZE) throw new Error(`the test face ${args.testFace} is not ${CROP_SIZE}x${CROP_SIZE}`);
  const face: RgbImage = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: CROP_SIZE, height: CROP_SIZE };
  let run: Record<string, ort.Tensor>;
  try {
    run = await session.run({ [spec.input.name]: recogniserInput(spec, face) });
  } catch (err) {
    throw new RecogniserError(`it fails on a ${spec.input.width}x${spec.input.height} face: ${(err as Error).message.split('\n')[0]}`);
  }
  const raw = run[spec.output.name].data as Float32Array;
  if (raw.length !== spec.output.size) throw new RecogniserError(`it answers ${raw.length} values for one face, not an embedding of ${spec.output.size}`);
  if (!raw.every((x) => Number.isFinite(x))) throw new RecogniserError('its embedding of the test face holds NaN or infinite values');
  const embedding = await embedCrop(session, spec, face).catch((err: Error) => {
    throw new RecogniserError(`its embedding of the test face is unusable: ${err.message}`);
  });
  const norm = Math.hypot(...raw);
  // A graph that ignores its input (constant output) would match everyone with everyone.
  const gray: RgbImage = { data: new Uint8Array(CROP_SIZE * CROP_SIZE * 3).fill(128), width: CROP_SIZE, height: CROP_SIZE };
  const other = (await session.run({ [spec.input.name]: recogniserInput(spec, gray) }))[spec.output.name].data as Float32Array;
  if (other.every((x, i) => x === raw[i]))
    throw new RecogniserError('it answers the same embedding for a face and for a plain gray image: the output does not depend on the input');
  return { ok: true, described, norm, dimensions: embedding.length };
}

const args = JSON.parse(process.argv[process.argv.length - 1] ?? '{}');
check(args).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (err: Error) => {
    process.stdout.write(`${JSON.stringify({ ok: false, reason: err instanceof RecogniserError ? err.message : `the check failed: ${err.message}` })}\n`);
  },
);
