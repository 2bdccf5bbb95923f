import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { chooseThreshold, livenessEvalCommand, thresholdCurve } from '../../../src/liveness/cli.js';
import { LivenessThresholds } from '../../../src/liveness/store.js';
import { migrations } from '../../../src/services.js';
import { CommandUsageError } from '../../../src/platform/cli.js';
import { loadConfig } from '../../../src/platform/config.js';
import { migrateToLatest, openStore } from '../../../src/platform/db/database.js';
import { fixture } from '../../../fixtures/faces/photos.js';
import { animate, crossFade, scene } from '../../../fixtures/videos/liveness.js';

describe('saola eval liveness', () => {
  it('threshold curve and choice', () => {
    const videos = [
      { file: 'l1', live: true, prob: 0.9, code: '200' },
      { file: 'l2', live: true, prob: 0.6, code: '200' },
      { file: 'l3', live: true, code: '412' },
      { file: 'a1', live: false, prob: 0.3, code: '200' },
      { file: 'a2', live: false, prob: 0.55, code: '200' },
      { file: 'a3', live: false, code: '413' },
    ];
    const curve = thresholdCurve(videos);
    const at = (t: number) => curve.find((p) => Math.abs(p.threshold - t) < 1e-9)!;
    assert.deepEqual([at(0.5).apcer, at(0.5).bpcer], [1 / 3, 1 / 3]);
    assert.deepEqual([at(0.6).apcer, at(0.6).bpcer], [0, 1 / 3]);
    assert.equal(chooseThreshold(curve, 0).threshold, 0.6);
    assert.equal(chooseThreshold(curve, 0.4).threshold, 0.35);
  });

  it('scores labelled videos, prints the curve and writes the chosen threshold', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-live-eval-'));
    try {
      const live = path.join(dir, 'live');
      const attack = path.join(dir, 'attack');
      fs.mkdirSync(live);
      fs.mkdirSync(attack);
      const o = { width: 640, height: 360, fps: 25, seconds: 5.2 };
      const grace = fixture('grace_hopper.jpg');
      fs.writeFileSync(path.join(live, 'p1.mp4'), await crossFade([grace, await sharp(grace).rotate(8, { background: '#777' }).jpeg().toBuffer()], o));
      fs.writeFileSync(path.join(attack, 'a1.mp4'), await animate(await scene(grace, o), 'shake', o));
      fs.writeFileSync(path.join(attack, 'notes.txt'), 'ignored');
      const config = loadConfig({ SAOLA_DATA_DIR: dir, SAOLA_LOG_LEVEL: 'silent' });
      let out = '';
      const ctx = { config, migrations, stdout: (t: string) => (out += t), stderr: () => {} };
      await assert.rejects(livenessEvalCommand({ ...ctx, args: ['--live', live] }), CommandUsageError);
      const code = await livenessEvalCommand({ ...ctx, args: ['--live', live, '--attack', attack, '--write', 'global', '--max-apcer', '0'] });
      assert.equal(code, 0);
      assert.match(out, /1 live and 1 attack videos, v3 rules/);
      assert.match(out, /threshold {2}APCER {3}BPCER/);
      const chosen = /chosen threshold (\d\.\d\d)/.exec(out);
      assert.ok(chosen, out);
      assert.match(out, /written for every application/);
      const store = openStore(config.databaseUrl);
      try {
        await migrateToLatest(store, migrations);
        const t = new LivenessThresholds(store.db);
        assert.equal(await t.forApp('any-app'), Number(chosen[1]));
        await t.set('app-1', 0.7);
        assert.equal(await t.forApp('app-1'), 0.7);
        assert.equal(await t.forApp('app-2'), Number(chosen[1]));
      } finally {
        await store.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
