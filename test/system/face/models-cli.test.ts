import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { faceModelsActivateCommand, faceModelsAddCommand, faceModelsRemoveCommand } from '../../../src/face/cli.js';
import { FaceRecognisers } from '../../../src/face/recognisers.js';
import { loadConfig } from '../../../src/platform/config.js';
import { migrations } from '../../../src/services.js';
import { modelsListCommand } from '../../../src/speech/cli.js';
import type { Command } from '../../../src/platform/cli.js';
import { buildTinyRecogniser, type TinyRecogniserForm } from '../../../fixtures/faces/tiny-recogniser.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-models-'));
const dataDir = path.join(root, 'data');
const config = loadConfig({ SAOLA_DATA_DIR: dataDir, SAOLA_LOG_LEVEL: 'silent' });

async function run(command: Command, args: string[]) {
  let out = '';
  let err = '';
  const code = await command({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

function model(form: TinyRecogniserForm, opts: { manifest?: Record<string, unknown>; file?: string } = {}): string {
  return buildTinyRecogniser(path.join(root, 'sources', `${form}-${Math.random().toString(36).slice(2, 8)}`), { form, ...opts });
}

describe('saola models add|list|activate|remove face', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('installs an ArcFace-form recogniser checked in a child process, makes it active, lists it beside the shipped one', async () => {
    const r = await run(faceModelsAddCommand, [model('arcface'), '--name', 'tiny-arcface']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /input 112x112 NCHW RGB, \(p - 127\.5\/127\.5\/127\.5\) \/ 127\.5\/127\.5\/127\.5, 512-d output/);
    assert.match(r.out, /Active face recogniser: tiny-arcface/);
    const recognisers = new FaceRecognisers(dataDir);
    assert.equal(recognisers.active.name, 'tiny-arcface');
    assert.equal(recognisers.similarityMap('tiny-arcface').version, 'uncalibrated-arcface-v1');
    assert.equal(recognisers.similarityMap('faceplugin-fr_feature-512').version, 'fr_feature-2026-11-v1');

    const list = await run(modelsListCommand, []);
    assert.match(
      list.out,
      /Face recognition \(face\):\n {2}faceplugin-fr_feature-512 \(shipped\) {2}112x112 -> 512-d\n {2}tiny-arcface {2}112x112 -> 512-d {2}\(active\)/,
    );
    const json = JSON.parse((await run(modelsListCommand, ['--json'])).out);
    assert.equal(json.face.active, 'tiny-arcface');

    // A second one side by side, stated by its manifest (128-d, BGR, its own map), not activated.
    const second = await run(faceModelsAddCommand, [
      model('arcface', {
        manifest: {
          file: 'net.onnx',
          input: { colour: 'bgr', mean: 127.5, std: 128 },
          similarity: [
            [-1, 0],
            [0.3, 0.8],
            [1, 1],
          ],
        },
        file: 'net.onnx',
      }),
      '--name',
      'tiny-bgr',
      '--no-activate',
    ]);
    assert.equal(second.code, 0, second.err);
    const both = new FaceRecognisers(dataDir);
    assert.equal(both.active.name, 'tiny-arcface');
    assert.equal(both.get('tiny-bgr')?.input.colour, 'bgr');
    assert.equal(both.similarityMap('tiny-bgr').version, 'tiny-bgr-manifest');
    assert.equal((await run(faceModelsAddCommand, [model('arcface'), '--name', 'tiny-bgr'])).code, 1, 'an existing name needs --force');

    // The active one cannot be removed; activate another first.
    const refused = await run(faceModelsRemoveCommand, ['tiny-arcface']);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /active recogniser/);
    assert.equal((await run(faceModelsActivateCommand, ['faceplugin-fr_feature-512'])).code, 0);
    assert.equal((await run(faceModelsRemoveCommand, ['tiny-arcface'])).code, 0);
    assert.equal((await run(faceModelsRemoveCommand, ['faceplugin-fr_feature-512'])).code, 1);
    assert.deepEqual(new FaceRecognisers(dataDir).names(), ['faceplugin-fr_feature-512', 'tiny-bgr']);
  });

  it('refuses broken recognisers with the reason and installs nothing', async () => {
    const notOnnx = path.join(root, 'sources', 'not-onnx');
    fs.mkdirSync(notOnnx, { recursive: true });
    fs.writeFileSync(path.join(notOnnx, 'model.onnx'), 'this is not a graph');
    const cases: [string[], RegExp][] = [
      [[model('nan'), '--name', 'bad-nan'], /NaN or infinite/],
      [[model('zero'), '--name', 'bad-zero'], /zero embedding/],
      [[model('gray-input'), '--name', 'bad-gray'], /no channel axis of 3/],
      [[model('constant'), '--name', 'bad-constant'], /does not depend on the input/],
      [[notOnnx, '--name', 'bad-bytes'], /cannot load it as an ONNX graph/],
      [[model('arcface'), '--name', '../escape'], /is not a model name/],
      [[model('arcface', { manifest: { file: '../../etc/passwd' } })], /give a file name inside the model's folder/],
      [[model('arcface'), '--name', 'faceplugin-fr_feature-512'], /shipped recogniser's name/],
    ];
    for (const [args, reason] of cases) {
      const r = await run(faceModelsAddCommand, args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}`);
      assert.match(r.err, reason);
      assert.match(r.err, /was not installed/);
    }
    assert.ok(!fs.readdirSync(path.join(dataDir, 'models', 'face')).some((f) => f.startsWith('bad-') || f.includes('.partial-')));
    assert.equal((await run(faceModelsAddCommand, [])).code, 2);
  });
});
