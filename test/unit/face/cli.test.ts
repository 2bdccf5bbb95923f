import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { faceEvalCommand } from '../../../src/face/cli.js';
import { augment, fixture } from '../../../fixtures/faces/photos.js';

async function run(args: string[]) {
  let out = '';
  let err = '';
  const code = await faceEvalCommand({ args, stdout: (t: string) => (out += t), stderr: (t: string) => (err += t) } as never);
  return { code, out, err };
}

describe('saola eval face', () => {
  it('prints usage without --pairs and fails on a folder without pairs.csv', async () => {
    assert.equal((await run([])).code, 2);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-eval-'));
    assert.equal((await run(['--pairs', empty])).code, 1);
  });

  it('scores labelled pairs: TAR at FAR, EER and a refit map', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-eval-'));
    const g = fixture('grace_hopper.jpg');
    const a = fixture('person-a.jpg');
    fs.writeFileSync(path.join(dir, 'g1.jpg'), g);
    fs.writeFileSync(path.join(dir, 'g2.jpg'), (await augment(g)).rotated);
    fs.writeFileSync(path.join(dir, 'a1.jpg'), a);
    fs.writeFileSync(path.join(dir, 'a2.jpg'), (await augment(a)).brighter);
    fs.writeFileSync(path.join(dir, 'c1.jpg'), fixture('person-c.jpg'));
    fs.writeFileSync(
      path.join(dir, 'pairs.csv'),
      'file_x,file_y,same_person\ng1.jpg,g2.jpg,yes\na1.jpg,a2.jpg,yes\ng1.jpg,a1.jpg,no\ng2.jpg,c1.jpg,no\na2.jpg,c1.jpg,no\n',
    );
    const r = await run(['--pairs', dir, '--json']);
    assert.equal(r.code, 0, r.err);
    const e = JSON.parse(r.out);
    assert.equal(e.images, 5);
    assert.deepEqual(e.missedDetections, []);
    assert.equal(e.genuine, 2);
    assert.equal(e.impostor, 3);
    assert.equal(e.eer, 0);
    assert.equal(e.tarAtFar[0].tar, 1);
    assert.ok(e.maxImpostorCosine < e.minGenuineCosine);
    assert.equal(e.refitKnots.length, 6);
    const text = await run(['--pairs', dir]);
    assert.match(text.out, /TAR@FAR 1e-3: 100\.00%/);
    assert.match(text.out, /EER: 0\.00%/);
  });
});
