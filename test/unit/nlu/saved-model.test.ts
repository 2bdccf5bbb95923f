import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { NluModel, type IntentScore, type NluModelData } from '../../../src/nlu/engine/model.js';

// A model document saved by an earlier version of the engine (6 generated banking intents, the generated
// set's entities, the default options of that version), and what that version answered on its test texts.
const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`../../fixtures/nlu/${name}`, import.meta.url), 'utf8')) as unknown;
const saved = fixture('model-v1.json') as NluModelData;
const recorded = fixture('model-v1-answers.json') as {
  now: string;
  offsetMinutes: number;
  answers: { text: string; confidences: IntentScore[]; predicted: unknown }[];
};

describe('a saved NLU model', () => {
  test('loads and predicts what the version that saved it predicted: intents, confidences and entities', () => {
    const model = new NluModel(saved);
    const ref = { now: new Date(recorded.now), offsetMinutes: recorded.offsetMinutes };
    assert.ok(recorded.answers.length > 50);
    for (const a of recorded.answers) {
      assert.deepEqual(model.predict(a.text, ref, { intent: true, entity: true }), a.predicted, a.text);
      const ranked = model.rankedIntents(a.text);
      assert.deepEqual(
        ranked.map((r) => r.label),
        a.confidences.map((r) => r.label),
        a.text,
      );
      ranked.forEach((r, i) => assert.ok(Math.abs(r.confidence - a.confidences[i]!.confidence) <= 1e-12, a.text));
    }
  });
});
