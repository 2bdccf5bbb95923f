import { generateDataset } from '../nlu-dataset.js';

/** The sentence the HTTP benches predict (numbers, a person, a time with its day). */
export const BENCH_SENTENCE = 'cho mình chuyển 500 nghìn cho chị Lan lúc 9 giờ sáng mai nhé';

/**
 * Gives a running server the HTTP benches' model: 20 generated intents (30 samples drawn each, no entities)
 * imported through the API, trained, and waited for.
 */
export async function trainBenchModel(url: string, headers: Record<string, string>): Promise<void> {
  const data = generateDataset({ perIntent: 30, testPerIntent: 1, seed: 7, intents: 20 });
  const rows = data.train.map((s) => ({ intent: s.intent, sample: s.text }));
  await fetch(`${url}/api/v3/intent-sample/import_intent_samples`, { method: 'POST', headers, body: JSON.stringify(rows) });
  await fetch(`${url}/api/v3/train`, { method: 'POST', headers });
  for (let i = 0; ; i++) {
    const status = (await (await fetch(`${url}/api/v3/train/status`, { headers })).json()) as { status: number };
    if (status.status === 2) return;
    if (status.status === 3 || i > 600) throw new Error(`training ended in state ${status.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
