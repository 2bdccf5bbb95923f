import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alignFace, featureInput } from '../../../src/face/engine/worker.js';
import { shippedRecogniser } from '../../../src/face/engine/models.js';
import { alignCrop, describeRecogniser, normalised, recogniserInput, RecogniserError, type GraphValue } from '../../../src/face/engine/recogniser.js';
import { validKnots, SIMILARITY_MAP, UNCALIBRATED_MAP } from '../../../src/face/engine/similarity.js';
import { cropKey } from '../../../src/face/crops.js';
import type { RgbImage } from '../../../src/face/engine/image.js';

const image = (shape: (number | string)[], name = 'input.1'): GraphValue => ({ name, isTensor: true, type: 'float32', shape });

/** A textured 400x300 image and 68 landmarks of a face-sized region in it (eyes, nose, mouth where the 5-point alignment reads them). */
function scene(): { img: RgbImage; lm: number[] } {
  const img: RgbImage = { data: new Uint8Array(400 * 300 * 3), width: 400, height: 300 };
  for (let i = 0; i < img.data.length; i++) img.data[i] = (i * 37 + ((i / 1200) | 0) * 11) % 251;
  const lm = new Array(136).fill(0);
  const set = (idx: number[], x: number, y: number) => idx.forEach((i) => ((lm[2 * i] = x), (lm[2 * i + 1] = y)));
  set([36, 37, 38, 39, 40, 41], 170, 130);
  set([42, 43, 44, 45, 46, 47], 232, 128);
  set([30], 201, 165);
  set([48, 60], 177, 200);
  set([54, 64], 226, 199);
  return { img, lm };
}

describe('face recognisers', () => {
  it("reads an ArcFace-form graph's input and output, with ArcFace's normalisation and template by default", () => {
    const d = describeRecogniser([image([1, 3, 112, 112])], [image([1, 512], '683')]);
    assert.deepEqual([d.input.name, d.input.width, d.input.height, d.input.layout, d.input.colour], ['input.1', 112, 112, 'nchw', 'rgb']);
    assert.deepEqual(d.input.mean, [127.5, 127.5, 127.5]);
    assert.deepEqual(d.output, { name: '683', size: 512 });
    const nhwc = describeRecogniser([image(['N', 112, 96, 3])], [image(['N', 128])]);
    assert.equal(nhwc.input.layout, 'nhwc');
    assert.equal(nhwc.input.width, 96);
    assert.equal(nhwc.output.size, 128);
  });

  it('refuses what is not a recogniser, with the reason, and takes from the manifest what the graph leaves open', () => {
    const refuses = (inputs: GraphValue[], outputs: GraphValue[], pattern: RegExp, manifest = {}) =>
      assert.throws(
        () => describeRecogniser(inputs, outputs, manifest),
        (err: Error) => err instanceof RecogniserError && pattern.test(err.message),
      );
    refuses([image([1, 1, 112, 112])], [image([1, 512])], /no channel axis of 3/);
    refuses([image([1, 3, 112])], [image([1, 512])], /shape \[1, 3, 112\]/);
    refuses([image([1, 3, 112, 112]), image([1])], [image([1, 512])], /takes 2 inputs/);
    refuses([image([1, 3, 'h', 'w'])], [image([1, 512])], /not fixed/);
    refuses([image([1, 3, 112, 112])], [image([1, 512, 7])], /answers \[1, D\]/);
    refuses([image([1, 3, 112, 112])], [image([1, 'd'])], /output size is not fixed/);
    refuses([image([1, 3, 112, 112])], [image([1, 512])], /std may not be 0/, { input: { std: 0 } });
    refuses([image([1, 3, 112, 112])], [image([1, 512])], /five \[x, y\] points/, { input: { template: [[1, 2]] } });
    refuses([image([1, 3, 112, 112])], [image([1, 512])], /says width 100, the graph 112/, { input: { width: 100 } });
    const stated = describeRecogniser([image([1, 3, 'h', 'w'])], [image([1, 'd'])], {
      input: { width: 128, height: 128, colour: 'bgr', mean: [0, 0, 0], std: 1 },
      output: { size: 256 },
    });
    assert.deepEqual([stated.input.width, stated.input.colour, stated.input.std[2], stated.output.size], [128, 'bgr', 1, 256]);
    // ArcFace's points scaled to the input.
    assert.ok(Math.abs(stated.input.template[0][0] - (38.2946 * 128) / 112) < 1e-9);
  });

  it("feeds the shipped recogniser from the kept crop exactly as from the photo (the crop's centre is its input)", () => {
    const { img, lm } = scene();
    const direct = featureInput(alignFace(img, lm));
    const fromCrop = recogniserInput(shippedRecogniser(), alignCrop(img, lm)).data as Float32Array;
    let worst = 0;
    for (let i = 0; i < direct.length; i++) worst = Math.max(worst, Math.abs(direct[i] - fromCrop[i]));
    // At most one grey level in a rare pixel (the two warps' float rounding), in units of 1/128.
    assert.ok(worst <= 1 / 128 + 1e-6, `largest difference ${worst}`);
  });

  it('lays the tensor out in the recogniser’s order: BGR and NHWC', () => {
    const { img, lm } = scene();
    const crop = alignCrop(img, lm);
    const spec = {
      ...shippedRecogniser(),
      input: {
        ...shippedRecogniser().input,
        colour: 'bgr' as const,
        layout: 'nhwc' as const,
        mean: [0, 0, 0] as [number, number, number],
        std: [1, 1, 1] as [number, number, number],
      },
    };
    const t = recogniserInput(spec, crop);
    assert.deepEqual(t.dims, [1, 112, 112, 3]);
    const rgb = recogniserInput({ ...spec, input: { ...spec.input, colour: 'rgb' } }, crop).data as Float32Array;
    const bgr = t.data as Float32Array;
    assert.equal(bgr[0], rgb[2]);
    assert.equal(bgr[2], rgb[0]);
  });

  it('normalises embeddings and tells zero and non-finite outputs apart', () => {
    assert.deepEqual([...normalised(new Float32Array([3, 4])).embedding], [0.6000000238418579, 0.800000011920929]);
    assert.equal(normalised(new Float32Array(4)).norm, 0);
    assert.ok(Number.isNaN(normalised(new Float32Array([1, Number.NaN])).norm));
  });

  it('checks similarity maps and keeps crop keys apart per application', () => {
    assert.ok(validKnots(SIMILARITY_MAP.knots));
    assert.ok(validKnots(UNCALIBRATED_MAP.knots));
    assert.ok(
      !validKnots([
        [0, 0],
        [1, 1],
      ]),
    );
    assert.ok(
      !validKnots([
        [-1, 0],
        [0.5, 0.9],
        [0.4, 0.95],
        [1, 1],
      ]),
    );
    assert.equal(cropKey('app1', 'c1', 'f1'), 'face-crops/app1/c1/f1.png');
    assert.notEqual(cropKey('a.b', 'c', 'f'), cropKey('a_b', 'c', 'f'));
    assert.match(cropKey('../x', 'c', 'f'), /^face-crops\/_[0-9a-f]+\/c\/f\.png$/);
  });
});
