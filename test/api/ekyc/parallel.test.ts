/**
 * Twenty sessions of the full flow at once on one in-process server (the
 * issue's goal): init, front, back, selfie, every session concurrently. Four
 * generated cards, each of another person with that person's photo as the
 * selfie, are shared round-robin by the sessions: a session that read
 * another's card answers another ID number (its front and back answers), and
 * one that compared its selfie with another's portrait fails the face match,
 * so no cross-talk goes unseen while the engines read only four cards' worth
 * of distinct images.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SqlEkycStore } from '../../../src/ekyc/index.js';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { citizenCard, face, type Card } from '../../support/ekyc/cards.js';

type Body = Record<string, any>;

const SESSIONS = 20;
/**
 * Seeds and faces of the four cards: four people with four numbers, each card valid today and passing every
 * check (many seeds draw a card already expired, E10). A refusal would not stay one session's: its fraud
 * memory would refuse the card's other sessions (DB01, DB02).
 */
const PEOPLE: [seed: number, face: string][] = [
  [20, 'person-a.jpg'],
  [26, 'person-b.jpg'],
  [32, 'person-c.jpg'],
  [38, 'grace_hopper.jpg'],
];

describe('eKYC: twenty sessions in parallel, end to end', () => {
  let app: TestApp;
  let cards: { card: Card; selfie: Buffer }[];

  const post = async (path: string, headers: Record<string, string>, files: [string, Buffer][] = []) => {
    const form = new FormData();
    for (const [k, v] of files) form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
    const res = await fetch(app.url + path, { method: 'POST', headers: { 'api-key': app.apiKey, ...headers }, body: files.length ? form : undefined });
    return { status: res.status, body: (await res.json()) as Body };
  };

  before(async () => {
    app = await startTestApp();
    cards = await Promise.all(PEOPLE.map(async ([seed, name]) => ({ card: await citizenCard(seed, face(name)), selfie: face(name) })));
    assert.equal(new Set(cards.map((c) => c.card.person.id12)).size, PEOPLE.length, 'four cards, four numbers');
  });
  after(async () => app?.close());

  /** One whole session with card `n % 4`; answers what each step answered. */
  async function session(n: number) {
    const { card, selfie } = cards[n % cards.length];
    const init = await post('/session/init', { 'device-type': 'api', client_uuid: `client-${n}` });
    const sid = init.body['session-id'] as string;
    const headers = (side: string) => ({ 'session-id': sid, 'device-type': 'api', 'document-type': 'idr', 'side-type': side });
    const front = await post('/ocr', headers('front'), [['files', card.front]]);
    const back = await post('/ocr', headers('back'), [['files', card.back]]);
    const liveness = await post('/face/liveness', { 'session-id': sid, 'device-type': 'api', auto: 'False' }, [['selfies', selfie]]);
    return { n, sid, card, init, front, back, liveness };
  }

  it('every session completes with its own card and face, and no error', async () => {
    const results = await Promise.all(Array.from({ length: SESSIONS }, (_, n) => session(n)));
    assert.equal(new Set(results.map((r) => r.sid)).size, SESSIONS, 'each session its own id');
    const idOf = (data: Body[]) => data.find((d) => d.key === 'ID')?.value;
    for (const { n, card, init, front, back, liveness } of results) {
      const what = `session ${n}`;
      assert.equal(init.status, 200, what);
      assert.equal(init.body.code, '200', what);
      assert.deepEqual(init.body.sdk_config, { is_show_ekyc_result: true, ekyc_flow: 1, liveness_type: 1, is_skip_nfc: true, limit: 5 }, what);

      assert.equal(front.status, 200, what);
      assert.equal(front.body.errorCode, '0', `${what}: ${JSON.stringify(front.body)}`);
      assert.equal(front.body.errorMessage, '', what);
      assert.deepEqual(front.body.total_data, [], what);
      for (const item of front.body.data) assert.deepEqual(Object.keys(item), ['key', 'locale', 'name', 'score', 'value'], what);
      assert.equal(idOf(front.body.data), card.person.id12, `${what}: the front's answer holds its own card's number`);

      assert.equal(back.status, 200, what);
      assert.equal(back.body.errorCode, '0', `${what}: ${JSON.stringify(back.body)}`);
      const keys = back.body.data.map((d: Body) => d.key);
      for (const k of ['ID', 'Name', 'Features', 'Issue Date', 'Issue Location', 'MRZ']) assert.ok(keys.includes(k), `${what}: ${keys.join()}`);
      assert.equal(idOf(back.body.data), card.person.id12, `${what}: the back's answer holds its own front's number`);

      assert.equal(liveness.status, 200, what);
      const body = liveness.body;
      assert.deepEqual(Object.keys(body), ['code', 'message', 'liveness', 'face_match', 'video_face_url', 'compared_face_url', 'is_complete_session'], what);
      // The selfie is the card's own person: a portrait of another session's card would not match.
      assert.equal(body.code, '200', `${what}: ${JSON.stringify(body)}`);
      assert.equal(body.face_match.isMatch, 'true', what);
      assert.equal(body.liveness.is_live, 'true', what);
      assert.equal(body.is_complete_session, true, what);
    }
    // Each session's row holds its own card's number and ended complete with one attempt.
    const store = SqlEkycStore.over(app.deps.store.db);
    for (const { n, sid, card } of results) {
      const row = await store.session(app.appCode, sid);
      assert.equal(row?.status, 'complete', `session ${n}`);
      assert.equal(row?.attempts, 1, `session ${n}`);
      assert.equal(row?.id_number, card.person.id12, `session ${n}`);
      assert.equal(row?.client_uuid, `client-${n}`, `session ${n}`);
    }
  });
});
