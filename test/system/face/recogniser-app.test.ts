import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { faceReindexCommand } from '../../../src/face/cli.js';
import { installFaceRecogniser } from '../../../src/face/models.js';
import { FaceStore } from '../../../src/face/store.js';
import { migrations } from '../../../src/services.js';
import { augment, fixture } from '../../../fixtures/faces/photos.js';
import { buildTinyRecogniser } from '../../../fixtures/faces/tiny-recogniser.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';

const S = '/dmp/facesearch/v2';
const ADMIN = 'operator passphrase for the recogniser test';

async function send(app: TestApp, apiKey: string, route: string, parts: [string, string | Buffer][], method = 'POST') {
  const form = new FormData();
  for (const [k, v] of parts) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'p.jpg');
  }
  const res = await fetch(app.url + route, { method, headers: { apikey: apiKey }, body: form });
  return (await res.json()) as any;
}

async function readyFace(app: TestApp): Promise<any> {
  return ((await (await fetch(`${app.url}/readyz`)).json()) as any).checks.face;
}

function crops(dataDir: string): string[] {
  const dir = path.join(dataDir, 'blobs', 'face-crops');
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.png'))
    : [];
}

describe('an installed recogniser in a running server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'saola-face-recogniser-'));
  let app: TestApp | undefined;
  after(async () => {
    await app?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps crops at enrolment, serves old collections with the shipped recogniser until reindexed, new ones with the active one', async () => {
    app = await startTestApp({ dataDir });
    const { apiKey, appCode } = await app.newTenant('faces');
    assert.equal((await readyFace(app)).recogniser, 'faceplugin-fr_feature-512');
    const grace = fixture('grace_hopper.jpg');
    assert.equal(
      (
        await send(app, apiKey, `${S}/add`, [
          ['collection', 'staff'],
          ['id', 'g'],
          ['file', grace],
        ])
      ).code,
      '200',
    );
    assert.equal(
      (
        await send(app, apiKey, `${S}/add`, [
          ['collection', 'staff'],
          ['id', 'p'],
          ['file', fixture('person-c.jpg')],
        ])
      ).code,
      '200',
    );
    assert.equal(crops(dataDir).length, 2);
    const shippedHit = await send(app, apiKey, `${S}/search`, [
      ['collection', 'staff'],
      ['file', (await augment(grace)).darker],
    ]);
    assert.equal(shippedHit.data?.id, 'g', JSON.stringify(shippedHit));
    await app.close();
    app = undefined;

    await installFaceRecogniser(dataDir, buildTinyRecogniser(path.join(dataDir, 'source')), { name: 'tiny', activate: true });
    app = await startTestApp({ dataDir, env: { SAOLA_ADMIN_PASSWORD: ADMIN } });
    // The console names the recogniser and which collections still wait for a reindex.
    const consoleView = async () =>
      (await (await fetch(`${app!.url}/console/api/apps/${appCode}/face-collections`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any;
    const face = await readyFace(app);
    assert.equal(face.recogniser, 'tiny');
    assert.equal(face.similarityMap, 'uncalibrated-arcface-v1');
    // The old collection still serves the shipped embeddings, and answers the same.
    assert.deepEqual(
      await send(app, apiKey, `${S}/search`, [
        ['collection', 'staff'],
        ['file', (await augment(grace)).darker],
      ]),
      shippedHit,
    );
    // A new collection is embedded by the active recogniser.
    assert.equal(
      (
        await send(app, apiKey, `${S}/add`, [
          ['collection', 'visitors'],
          ['id', 'a'],
          ['file', fixture('person-a.jpg')],
        ])
      ).code,
      '200',
    );
    const store = new FaceStore(app.deps.store);
    const visitors = await store.findCollection((await store.allCollections('visitors'))[0].app_code, 'visitors');
    assert.equal(visitors?.model, 'tiny');
    const visitorHit = await send(app, apiKey, `${S}/search`, [
      ['collection', 'visitors'],
      ['file', fixture('person-a.jpg')],
      ['threshold', '0.5'],
    ]);
    assert.equal(visitorHit.data?.id, 'a', JSON.stringify(visitorHit));
    const before = await consoleView();
    assert.equal(before.recogniser.name, 'tiny');
    assert.deepEqual(
      before.collections.map((c: any) => [c.name, c.recogniser, c.state, c.faces]),
      [
        ['staff', 'faceplugin-fr_feature-512', 'reindex', 2],
        ['visitors', 'tiny', 'current', 1],
      ],
    );

    // Reindexing while the server runs: the next search reads the new embeddings.
    let out = '';
    const code = await faceReindexCommand({ config: app.deps.config, migrations, args: ['--model', 'tiny'], stdout: (t) => (out += t), stderr: (t) => (out += t) });
    assert.equal(code, 0, out);
    assert.match(out, /collection "staff": switched to tiny/);
    assert.deepEqual(
      (await consoleView()).collections.map((c: any) => [c.name, c.state]),
      [
        ['staff', 'current'],
        ['visitors', 'current'],
      ],
    );
    const reindexed = await send(app, apiKey, `${S}/search`, [
      ['collection', 'staff'],
      ['file', grace],
      ['threshold', '0.5'],
    ]);
    assert.equal(reindexed.data?.id, 'g', JSON.stringify(reindexed));
    assert.equal(reindexed.data.similarity, 1, 'the enrolled photo itself: the same crop, the same embedding');

    assert.equal(
      (
        await send(
          app,
          apiKey,
          `${S}/delete_faces`,
          [
            ['collection', 'staff'],
            ['id', 'g'],
          ],
          'DELETE',
        )
      ).code,
      '200',
    );
    assert.equal(crops(dataDir).length, 2);
    assert.equal((await send(app, apiKey, `${S}/delete_collection`, [['collection', 'visitors']], 'DELETE')).code, '200');
    assert.equal(crops(dataDir).length, 1);
  });
});
