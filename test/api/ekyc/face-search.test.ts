/**
 * The selfie step's `face_search` on an in-process server: the application's
 * face search collections (its flow settings) searched for the selfie and for
 * the document's portrait, with the real engines on a generated card. The
 * card's person enrolled (another photo of them) is found for both; another
 * person in the same collection is not; a collection name the application
 * lacks answers empty lists with its error; no collections, no `face_search`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { citizenCard, face, type Card } from '../../support/ekyc/cards.js';

type Body = Record<string, any>;

describe('eKYC face_search', () => {
  let app: TestApp;
  let card: Card;

  const send = async (method: string, path: string, headers: Record<string, string>, body?: FormData | string) => {
    const res = await fetch(app.url + path, { method, headers: { 'api-key': app.apiKey, ...headers }, body });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const form = (entries: [string, string | Buffer][]) => {
    const f = new FormData();
    for (const [k, v] of entries) {
      if (typeof v === 'string') f.append(k, v);
      else f.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
    }
    return f;
  };
  const settings = (doc: object) => send('PUT', '/session/settings', { 'content-type': 'application/json' }, JSON.stringify(doc));

  /** A whole session with the card and the card's person's selfie: the selfie step's answer. */
  async function session(): Promise<Body> {
    const sid = (await send('POST', '/session/init', { 'device-type': 'api' })).body['session-id'] as string;
    const headers = (side: string) => ({ 'session-id': sid, 'device-type': 'api', 'document-type': 'idr', 'side-type': side });
    assert.equal((await send('POST', '/ocr', headers('front'), form([['files', card.front]]))).body.errorCode, '0');
    assert.equal((await send('POST', '/ocr', headers('back'), form([['files', card.back]]))).body.errorCode, '0');
    const selfie = await send('POST', '/face/liveness', { 'session-id': sid, 'device-type': 'api' }, form([['selfies', face('person-a.jpg')]]));
    assert.equal(selfie.status, 200);
    assert.equal(selfie.body.code, '200', JSON.stringify(selfie.body));
    return selfie.body;
  }

  before(async () => {
    app = await startTestApp();
    card = await citizenCard(20, face('person-a.jpg'));
    // The card's person enrolled twice, as two users, from other photos of them (mirrored and lighter; darker
    // and softer), and someone else beside them.
    const mirrored = await sharp(face('person-a.jpg')).flop().modulate({ brightness: 1.15 }).jpeg({ quality: 85 }).toBuffer();
    const darker = await sharp(face('person-a.jpg')).modulate({ brightness: 0.85 }).blur(0.8).jpeg({ quality: 80 }).toBuffer();
    for (const [id, name, photo] of [
      ['member-a', 'Member A', mirrored],
      ['member-a-again', 'Member A again', darker],
      ['member-c', 'Member C', face('person-c.jpg')],
    ] as const) {
      assert.equal((await send('POST', '/dmp/facesearch/v2/create', {}, form([['collection', 'members'], ['id', id], ['name', name]]))).body.code, '200');
      const add = await send('POST', '/dmp/facesearch/v2/add', {}, form([['collection', 'members'], ['id', id], ['file', photo]]));
      assert.deepEqual(add.body, { code: '200', data: 'Add photo success' });
    }
  });
  after(async () => app?.close());

  it("finds the card's person for the selfie and the document; an unknown collection says so", async () => {
    assert.equal((await settings({ face_search_collections: ['members', 'no-such-collection'], face_search_top_k: 3 })).status, 200);
    const body = await session();
    // The guide's order: face_search after the urls, before is_complete_session.
    assert.deepEqual(Object.keys(body), ['code', 'message', 'liveness', 'face_match', 'video_face_url', 'compared_face_url', 'face_search', 'is_complete_session']);
    assert.deepEqual(Object.keys(body.face_search), ['members', 'no-such-collection']);
    const { selfie, document } = body.face_search.members;
    assert.deepEqual(Object.keys(body.face_search.members), ['selfie', 'document']);
    for (const [items, faceType] of [
      [selfie, 'selfie'],
      [document, 'idr'],
    ] as const) {
      // Only the card's person's two users are at or above the search threshold, best first: the other member is not answered.
      assert.deepEqual(items.map((i: Body) => i.id).sort(), ['member-a', 'member-a-again'], JSON.stringify(items));
      assert.ok(items[0].similarity >= items[1].similarity, JSON.stringify(items));
      for (const item of items) {
        assert.deepEqual(Object.keys(item), ['id', 'name', 'similarity', 'face_type']);
        assert.equal(item.face_type, faceType);
        assert.equal(item.name, item.id === 'member-a' ? 'Member A' : 'Member A again');
        assert.equal(typeof item.similarity, 'number');
        assert.ok(item.similarity >= 0.85 && item.similarity <= 1, String(item.similarity));
      }
    }
    assert.deepEqual(body.face_search['no-such-collection'], { selfie: [], document: [], error: 'collection not found' });
  });

  it('top_k bounds each list; no collections, no face_search', async () => {
    // Two users match the person: top_k 1 keeps the nearest of them only.
    assert.equal((await settings({ face_search_collections: ['members'], face_search_top_k: 1 })).status, 200);
    const one = await session();
    assert.equal(one.face_search.members.selfie.length, 1);
    assert.equal(one.face_search.members.document.length, 1);
    assert.ok(['member-a', 'member-a-again'].includes(one.face_search.members.selfie[0].id));
    assert.equal((await settings({})).status, 200);
    const none = await session();
    assert.equal('face_search' in none, false, JSON.stringify(Object.keys(none)));
  });
});
