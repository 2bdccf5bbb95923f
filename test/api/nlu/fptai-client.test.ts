import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../../fixtures/servers/app.js';
import { call } from '../../support/http.js';

/**
 * A client shaped like the public Go client of the original API (fptai-go):
 * base URL `<host>/api`, version `v3`, bearer token, JSON bodies, any status
 * other than 200/201 an error, answers decoded by Go's rules into its structs
 * (an int64 field refuses a fraction or a string, unknown fields are ignored).
 * Against Saola it changes only the base URL.
 */

type GoKind = 'string' | 'int64' | 'float64' | 'bool' | 'any' | { struct: GoStruct } | { slice: GoKind };
type GoStruct = Record<string, GoKind>;

/** Decodes like encoding/json into the given struct: throws where Go's decoder would. */
function goDecode(value: unknown, kind: GoKind, path = '$'): unknown {
  if (value === null) return null; // Go leaves the zero value
  if (kind === 'any') return value;
  if (kind === 'string') {
    if (typeof value !== 'string') throw new Error(`json: cannot unmarshal ${typeof value} into ${path} of type string`);
    return value;
  }
  if (kind === 'int64') {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`json: cannot unmarshal ${JSON.stringify(value)} into ${path} of type int64`);
    return value;
  }
  if (kind === 'float64') {
    if (typeof value !== 'number') throw new Error(`json: cannot unmarshal ${typeof value} into ${path} of type float64`);
    return value;
  }
  if (kind === 'bool') {
    if (typeof value !== 'boolean') throw new Error(`json: cannot unmarshal ${typeof value} into ${path} of type bool`);
    return value;
  }
  if ('slice' in kind) {
    if (!Array.isArray(value)) throw new Error(`json: cannot unmarshal into ${path} of type slice`);
    return value.map((v, i) => goDecode(v, kind.slice, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`json: cannot unmarshal into ${path} of type struct`);
  const out: Record<string, unknown> = {};
  for (const [field, fieldKind] of Object.entries(kind.struct)) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) out[field] = goDecode(v, fieldKind, `${path}.${field}`);
  }
  return out;
}

const TrainingStatus: GoStruct = { last_success_time: 'string', status: 'int64', trainable: 'bool' };
const TrainingModelStatus: GoStruct = {
  code: 'string',
  app_code: 'string',
  type: 'int64',
  state: 'int64',
  message: 'string',
  model_file: 'string',
  accuracy: 'float64',
  precision: 'float64',
  recall: 'int64',
  f1: 'int64',
  created_time: 'string',
  finished_time: 'string',
  started_time: 'string',
};
const TrainingModelStatusResponse: GoStruct = { message: 'string', status: { slice: { struct: TrainingModelStatus } } };
const PredictEntity: GoStruct = { start: 'int64', end: 'int64', value: 'string', real_value: 'any', entity: 'string', subentities: 'any' };
const PredictResponse: GoStruct = {
  status: { struct: { code: 'int64', message: 'string', module: 'string', api_code: 'int64', err_code: 'int64', detail: 'string', app_code: 'string' } },
  data: {
    struct: {
      entities: { slice: { struct: PredictEntity } },
      intents: { slice: { struct: { label: 'string', confidence: 'float64' } } },
      history_id: 'int64',
    },
  },
};

class FptAiLikeClient {
  readonly version = 'v3';
  constructor(
    private readonly token: string,
    public apiBaseUrl = 'https://v3-api.fpt.ai/api',
  ) {}

  private async request(method: string, apiPath: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.apiBaseUrl}/${this.version}/${apiPath}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const decoded = (await res.json()) as unknown;
    if (res.status !== 200 && res.status !== 201) throw new Error(`error while make api request. resp: ${JSON.stringify(decoded)}`);
    return decoded;
  }

  private static suffix(model: string): string {
    return model === 'intent' || model === 'entity' ? `/${model}` : '';
  }

  async getCurrentTrainingStatus(): Promise<any> {
    return goDecode(await this.request('POST', 'train/status'), { struct: TrainingStatus });
  }

  async getTrainingModelStatus(model: string): Promise<any> {
    return goDecode(await this.request('POST', `train${FptAiLikeClient.suffix(model)}`), { struct: TrainingModelStatusResponse });
  }

  async getNLPPredict(content: string, saveHistory: boolean, contain: string): Promise<any> {
    return goDecode(await this.request('POST', `predict${FptAiLikeClient.suffix(contain)}`, { content, save_history: saveHistory }), { struct: PredictResponse });
  }
}

describe('a client shaped like fptai-go, with only its base URL changed', () => {
  let t: TestApp;
  before(async () => {
    // Every prediction through a prediction thread (by default a short text is predicted on the event loop, as
    // test/system/nlu/model-api.test.ts has it): the Go client decodes the answers of both paths.
    t = await startTestApp({ env: { SAOLA_NLU_PREDICT_INLINE_CHARS: '0', SAOLA_NLU_PREDICT_THREADS: '1' } });
    const rows = [
      ['order_food', 'cho mình một bát phở bò'],
      ['order_food', 'đặt hai cốc trà sữa'],
      ['order_food', 'gọi một suất cơm gà'],
      ['order_food', 'mình muốn order bánh mì'],
      ['order_food', 'cho tôi một ly cà phê sữa đá'],
      ['ask_hours', 'quán mở cửa lúc mấy giờ'],
      ['ask_hours', 'mấy giờ thì đóng cửa'],
      ['ask_hours', 'hôm nay quán có mở không'],
      ['ask_hours', 'giờ mở cửa của cửa hàng'],
      ['ask_hours', 'chủ nhật có bán không'],
    ].map(([intent, sample]) => ({ intent, sample }));
    const imported = await call(t.url, 'POST', '/api/v3/intent-sample/import_intent_samples', { token: t.token, json: rows });
    assert.equal(imported.body.number_of_imported_sample, rows.length);
  });
  after(() => t?.close());

  test('train, poll the status, predict all / intents / entities: every answer decodes into the Go structs', async () => {
    const client = new FptAiLikeClient(t.token);
    client.apiBaseUrl = `${t.url}/api`;

    const before = await client.getCurrentTrainingStatus();
    assert.deepEqual(before, { last_success_time: '', status: 0, trainable: true });
    const started = await client.getTrainingModelStatus('');
    assert.equal(started.status.length, 1);
    assert.ok([0, 1].includes(started.status[0].state));
    let status = before;
    for (let i = 0; i < 600 && status.status < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await client.getCurrentTrainingStatus();
    }
    assert.equal(status.status, 2);
    assert.equal(status.trainable, false);

    const all = await client.getNLPPredict('cho mình 2 cốc trà sữa lúc 9 giờ sáng mai', true, 'all');
    assert.equal(all.status.code, 200);
    assert.equal(all.data.intents[0].label, 'order_food');
    assert.ok(all.data.history_id > 0);
    assert.ok(all.data.entities.some((e: any) => e.entity === 'sys_number' && e.real_value === 2));
    const intents = await client.getNLPPredict('quán mấy giờ mở cửa vậy', false, 'intent');
    assert.equal(intents.status.message, 'Predict Intents successful');
    assert.equal(intents.data.intents[0].label, 'ask_hours');
    assert.equal(intents.data.history_id, 0);
    const entities = await client.getNLPPredict('ba mươi phần trăm', false, 'entity');
    assert.equal(entities.status.message, 'Recognize Entities successful');
    assert.deepEqual(
      entities.data.entities.map((e: any) => [e.entity, e.start, e.end, e.real_value]),
      [['sys_percent', 0, 17, 30]],
    );
  });

  test('errors reach the client as errors, never as a 500', async () => {
    const stranger = new FptAiLikeClient('st_not-a-token', `${t.url}/api`);
    await assert.rejects(stranger.getNLPPredict('xin chào', false, ''), /UNAUTHORIZED/);
    const other = await t.newTenant('no-model');
    const fresh = new FptAiLikeClient(other.token, `${t.url}/api`);
    await assert.rejects(fresh.getNLPPredict('xin chào', false, ''), /MODEL_NOT_TRAINED/);
    await assert.rejects(fresh.getTrainingModelStatus('intent'), /NOT_ENOUGH_DATA/);
  });
});
