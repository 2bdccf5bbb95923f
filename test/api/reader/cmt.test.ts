/**
 * The legacy POST /cmt: multipart and form-urlencoded bodies, exactly one of
 * image / image_url / image_base64, face=1, the SSRF guard, tenancy.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { fixture, postForm, postUrlencoded, truth } from '../../support/reader/helpers.js';

const FRONT = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];

describe('POST /cmt', () => {
  let t: TestApp;
  let files: http.Server;
  let filesUrl: string;
  before(async () => {
    // Loopback allowed for this server only, to fetch image_url from the local file server below.
    t = await startTestApp({ env: { SAOLA_READER_ALLOW_PRIVATE_URLS: 'true' } });
    files = http.createServer((req, res) => {
      if (req.url === '/card.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fixture('chip-front.jpg'));
      else if (req.url === '/redirect') res.writeHead(302, { location: '/card.jpg' }).end();
      else res.writeHead(404).end('no');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  after(async () => {
    files.close();
    await t.close();
  });

  it('multipart image with face=1: legacy fields, a served face URL and face_base64', async () => {
    const { status, body } = await postForm(`${t.url}/cmt`, t.apiKey, { image: fixture('chip-front.jpg'), face: '1' });
    assert.equal(status, 200);
    assert.equal(body.errorCode, 0, body.errorMessage);
    const d = body.data[0];
    for (const f of FRONT) assert.equal(d[f], truth['chip-front'].fields[f], f);
    assert.equal(d.address_entities, undefined);
    assert.equal(d.type, undefined);
    assert.match(String(d.face), new RegExp(`^${t.url}/cmt/faces/[0-9a-f-]{36}\\.jpg$`));
    const face = await fetch(String(d.face));
    assert.equal(face.status, 200);
    assert.equal(face.headers.get('content-type'), 'image/jpeg');
    const bytes = Buffer.from(await face.arrayBuffer());
    assert.deepEqual(bytes, Buffer.from(String(d.face_base64), 'base64'));
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.ok(meta.height! > meta.width!, 'a portrait crop');
    const missing = await fetch(`${t.url}/cmt/faces/00000000-0000-0000-0000-000000000000.jpg`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { errorCode: number }).errorCode, 1);
  });

  it('form-urlencoded image_base64 (also as a data URL), without face', async () => {
    const b64 = fixture('chip-front.jpg').toString('base64');
    for (const image_base64 of [b64, `data:image/jpeg;base64,${b64}`]) {
      const { body } = await postUrlencoded(`${t.url}/cmt`, t.apiKey, { image_base64 });
      assert.equal(body.errorCode, 0, body.errorMessage);
      assert.equal(body.data[0].id, truth['chip-front'].fields.id);
      assert.equal(body.data[0].face, undefined);
    }
  });

  it('image_url fetched from a server (after a redirect), face=0', async () => {
    const { body } = await postUrlencoded(`${t.url}/cmt`, t.apiKey, { image_url: `${filesUrl}/redirect`, face: '0' });
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.data[0].name, truth['chip-front'].fields.name);
  });

  it('codes 1, 5, 6, 9, 10 and 413 on the legacy endpoint', async () => {
    const url = `${t.url}/cmt`;
    const code = async (fields: Record<string, string>) => (await postUrlencoded(url, t.apiKey, fields)).body.errorCode;
    assert.equal(await code({ face: '1' }), 1);
    assert.equal(await code({ image_url: `${filesUrl}/card.jpg`, image_base64: 'abcd' }), 1);
    assert.equal(await code({ image_base64: 'abcd', face: 'maybe' }), 1);
    assert.equal(await code({ image_url: '' }), 5);
    assert.equal(await code({ image_url: `${filesUrl}/nothing.jpg` }), 6);
    assert.equal(await code({ image_url: 'http://name.invalid/card.jpg' }), 6);
    assert.equal(await code({ image_base64: '' }), 9);
    assert.equal(await code({ image_base64: '!!!!' }), 10);
    const multi = await postForm(url, t.apiKey, { image: fixture('chip-front.jpg'), image_url: `${filesUrl}/card.jpg` });
    assert.equal(multi.body.errorCode, 1);
    const big = await postForm(url, t.apiKey, { image: Buffer.alloc(5 * 1024 * 1024 + 10, 1) });
    assert.equal(big.status, 413);
    assert.equal(big.body.errorCode, 1);
    const noKey = await fetch(url, { method: 'POST', body: 'image_url=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { errorCode: number }).errorCode, 1);
  });

  it('every application reads with its own key; a forged key is refused', async () => {
    const other = await t.newTenant('other-app');
    const { body } = await postUrlencoded(`${t.url}/cmt`, other.apiKey, { image_base64: fixture('cmnd09-back.jpg').toString('base64') });
    assert.equal(body.errorCode, 0, body.errorMessage);
    assert.equal(body.data[0].issue_loc, truth['cmnd09-back'].fields.issue_loc);
    const forged = await postUrlencoded(`${t.url}/cmt`, `${other.apiKey}x`, { image_base64: 'abcd' });
    assert.equal(forged.status, 401);
  });
});

describe('POST /cmt with the default guard', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t.close());

  it('refuses image_url on loopback, private and link-local addresses (code 6)', async () => {
    for (const target of [`${t.url}/healthz`, 'http://localhost:9/x.jpg', 'http://10.0.0.1/x.jpg', 'http://169.254.169.254/latest/meta-data']) {
      const { body } = await postUrlencoded(`${t.url}/cmt`, t.apiKey, { image_url: target });
      assert.equal(body.errorCode, 6, target);
      assert.match(body.errorMessage, /private|loopback|link-local/, target);
    }
  });
});
