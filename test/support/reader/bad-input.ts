/**
 * Bad input for a recognition endpoint that takes one image (the passport and
 * licence endpoints share it): every way a request can be empty, of the wrong
 * format, truncated, an `image_url` aimed inside the network, or too large must
 * answer the spec's errorCode in its envelope (`data: []`, a message), never a 500.
 * Registered inside the caller's describe, on its running test app.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sharp from 'sharp';
import type { TestApp } from '../../../fixtures/servers/app.js';
import { fixture, postForm, postUrlencoded, type Envelope } from './helpers.js';

const expectError = (r: { status: number; body: Envelope }, code: number, status: number, what: string) => {
  assert.equal(r.status, status, `${what}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(r.body.errorCode, code, `${what}: ${r.body.errorMessage}`);
  assert.deepEqual(r.body.data, [], what);
  assert.ok(typeof r.body.errorMessage === 'string' && r.body.errorMessage.length > 0, `${what}: a message`);
};

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A real 64 x 64 PNG with its IHDR rewritten (and its CRC recomputed) to claim 50000 x 50000 pixels. */
async function pixelBomb(): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
      .png()
      .toBuffer(),
  );
  // Signature (8), IHDR length (4), 'IHDR' (4), width (4), height (4), ... CRC over type and data (17 bytes).
  png.writeUInt32BE(50_000, 16);
  png.writeUInt32BE(50_000, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

export function badInputCases(app: () => TestApp, route: string): void {
  const url = () => `${app().url}${route}`;
  const post = (parts: Record<string, string | Buffer>) => postForm(url(), app().apiKey, parts);

  it(`${route} 1: empty, missing, doubled or text-only image; 401 without a valid key`, async () => {
    expectError(await post({ image: Buffer.alloc(0) }), 1, 200, 'empty file');
    expectError(await post({ face: '0' }), 1, 200, 'no image at all');
    expectError(await post({ image: 'not a file, a text field' }), 1, 200, 'image sent as text');
    expectError(await post({ image: fixture('chip-front.jpg'), image_base64: fixture('chip-front.jpg').toString('base64') }), 1, 200, 'file and base64 both');
    const empty = await fetch(url(), { method: 'POST', headers: { api_key: app().apiKey } });
    expectError({ status: empty.status, body: (await empty.json()) as Envelope }, 1, 200, 'no body');
    for (const key of [undefined, 'not-a-key']) expectError(await postForm(url(), key, { image: fixture('chip-front.jpg') }), 1, 401, `key ${key}`);
  });

  it(`${route} 5 and 6: image_url empty, or aimed at loopback, private, link-local or non-http targets`, async () => {
    expectError(await post({ image_url: '' }), 5, 200, 'empty URL');
    expectError(await postUrlencoded(url(), app().apiKey, { image_url: '  ' }), 5, 200, 'blank URL (urlencoded)');
    const inside = [
      `${app().url}/healthz`,
      'http://127.0.0.1:9/x.jpg',
      'http://10.1.2.3/x.jpg',
      'http://192.168.0.1/x.jpg',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x.jpg',
      'http://[::ffff:127.0.0.1]/x.jpg',
      'http://0.0.0.0/x.jpg',
    ];
    for (const target of inside) {
      const r = await post({ image_url: target });
      expectError(r, 6, 200, target);
      assert.match(r.body.errorMessage, /private|loopback|link-local|not allowed|refused/i, `${target}: ${r.body.errorMessage}`);
    }
    for (const target of ['ftp://example.invalid/x.jpg', 'file:///etc/passwd', 'not a url', 'gopher://127.0.0.1/'])
      expectError(await post({ image_url: target }), 6, 200, target);
  });

  it(`${route} 7 and 8: not an image, truncated, corrupt, unsupported or over the pixel limit`, async () => {
    const jpeg = fixture('chip-front.jpg');
    const png = await sharp(jpeg).png().toBuffer();
    for (const [name, body] of Object.entries({
      text: Buffer.from('plain text, certainly not a picture'),
      pdf: Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n'),
      wav: Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(64)]),
      zeros: Buffer.alloc(4096),
    }))
      expectError(await post({ image: body }), 7, 200, name);
    for (const [name, body] of Object.entries({
      'truncated JPEG': jpeg.subarray(0, Math.floor(jpeg.length / 2)),
      'truncated PNG': png.subarray(0, Math.floor(png.length * 0.6)),
      'PNG signature then junk': Buffer.concat([png.subarray(0, 8), Buffer.alloc(300, 0x41)]),
      'JPEG header only': jpeg.subarray(0, 40),
      // A small PNG whose header claims 50000 x 50000: refused by the pixel limit before it is decoded.
      'pixel bomb': await pixelBomb(),
    }))
      expectError(await post({ image: body }), 8, 200, name);
    assert.match((await post({ image: await pixelBomb() })).body.errorMessage, /pixels/, 'the pixel limit says so');
  });

  it(`${route} 9 and 10: image_base64 empty or not base64; a valid base64 image is read`, async () => {
    expectError(await post({ image_base64: '' }), 9, 200, 'empty base64');
    expectError(await postUrlencoded(url(), app().apiKey, { image_base64: '' }), 9, 200, 'empty base64 (urlencoded)');
    expectError(await post({ image_base64: '@@@ not base64 @@@' }), 10, 200, 'invalid base64');
    expectError(await postUrlencoded(url(), app().apiKey, { image_base64: 'a' }), 10, 200, 'one character');
    // Decoded and handed to the reader: a blank page is no document (3), whatever way it came.
    const blank = await sharp({ create: { width: 1000, height: 700, channels: 3, background: '#d0d0d0' } })
      .jpeg()
      .toBuffer();
    expectError(await post({ image_base64: `data:image/jpeg;base64,${blank.toString('base64')}` }), 3, 200, 'blank page as a data: URL');
  });

  it(`${route} 413: an image over 5 MB, as a file or as base64`, async () => {
    const big = Buffer.concat([fixture('chip-front.jpg'), Buffer.alloc(5 * 1024 * 1024)]);
    expectError(await post({ image: big }), 1, 413, 'file over 5 MB');
    expectError(await postUrlencoded(url(), app().apiKey, { image_base64: big.toString('base64') }), 1, 413, 'base64 over 5 MB');
  });
}
