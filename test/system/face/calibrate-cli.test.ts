import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { faceCalibrateCommand } from '../../../src/face/cli.js';
import { installFaceRecogniser } from '../../../src/face/models.js';
import { FaceRecognisers } from '../../../src/face/recognisers.js';
import { FaceStore } from '../../../src/face/store.js';
import { loadConfig } from '../../../src/platform/config.js';
import { migrateToLatest, openStore } from '../../../src/platform/db/database.js';
import { migrations } from '../../../src/services.js';
import { augment, fixture } from '../../../fixtures/faces/photos.js';
import { buildTinyRecogniser } from '../../../fixtures/faces/tiny-recogniser.js';

describe('saola face calibrate', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-calibrate-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("fits the active recogniser's map on a folder per person, reports TAR at FAR and thresholds, and stores it", async () => {
    const config = loadConfig({ SAOLA_DATA_DIR: path.join(dir, 'data'), SAOLA_LOG_LEVEL: 'silent' });
    await installFaceRecogniser(config.dataDir, buildTinyRecogniser(path.join(dir, 'source')), { name: 'tiny', activate: true });
    // Four people, five photos each: the photo and four genuine variants of it.
    const people = path.join(dir, 'people');
    for (const [person, file] of [
      ['grace', 'grace_hopper.jpg'],
      ['a', 'person-a.jpg'],
      ['b', 'person-b.jpg'],
      ['c', 'person-c.jpg'],
    ]) {
      fs.mkdirSync(path.join(people, person), { recursive: true });
      const photo = fixture(file);
      const variants = await augment(photo);
      for (const [name, bytes] of Object.entries({
        original: photo,
        brighter: variants.brighter,
        darker: variants.darker,
        blurred: variants.blurred,
        mirrored: variants.mirrored,
      })) {
        fs.writeFileSync(path.join(people, person, `${name}.jpg`), bytes);
      }
    }
    let out = '';
    let err = '';
    const run = (args: string[]) => {
      out = '';
      err = '';
      return faceCalibrateCommand({ config, migrations, args, stdout: (t) => (out += t), stderr: (t) => (err += t) });
    };
    assert.equal(await run(['--labels', people, '--dry-run']), 0, err);
    assert.match(out, /recogniser tiny: 20 photo\(s\) of 4 people/);
    assert.match(out, /pairs: 40 genuine, 150 impostor/);
    assert.match(out, /genuine cosine +min -?\d\.\d{3}/);
    assert.match(out, /TAR at FAR 1e-3: \d+\.\d\d% \(cosine >= -?\d\.\d{3}\) \(fewer than 1000 impostor pairs/);
    assert.match(out, /TAR at FAR 1e-4: /);
    assert.match(out, /TAR at zero impostors: /);
    assert.match(out, /suggested thresholds with this map: face match 80/);
    const store = openStore(config.databaseUrl);
    try {
      await migrateToLatest(store, migrations);
      assert.equal((await new FaceStore(store).similarityMaps()).size, 0, '--dry-run stores nothing');

      assert.equal(await run(['--labels', people]), 0, err);
      assert.match(out, /Stored the similarity map tiny-calibrated-\d{12} for tiny/);
      const recognisers = new FaceRecognisers(config.dataDir);
      recognisers.useStoredMaps(await new FaceStore(store).similarityMaps());
      const map = recognisers.similarityMap('tiny');
      assert.match(map.version, /^tiny-calibrated-/);
      assert.equal(map.knots.length, 6);
      // The shipped recogniser keeps its own map.
      assert.equal(recognisers.similarityMap('faceplugin-fr_feature-512').version, 'fr_feature-2026-11-v1');
    } finally {
      await store.close();
    }

    // One person cannot be calibrated on.
    assert.equal(await run(['--labels', path.join(people, 'grace')]), 1);
    assert.match(err, /no labels.csv, pairs.csv or folder per person|a fit needs at least/);
    assert.equal(await run([]), 2);
  });
});
