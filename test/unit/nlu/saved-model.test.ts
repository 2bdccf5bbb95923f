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

/** The system entities added after that version (money, durations, temperatures): answered beside what it answered. */
const ADDED = new Set(['sys_money', 'sys_duration', 'sys_temperature']);
type Answer = { entities?: { entity: string; subentities: { entity: string }[] }[] };
function withoutAdded(answer: Answer): Answer {
  if (!answer.entities) return answer;
  const entities = answer.entities.filter((e) => !ADDED.has(e.entity)).map((e) => ({ ...e, subentities: e.subentities.filter((s) => !ADDED.has(s.entity)) }));
  return { ...answer, entities };
}

describe('a saved NLU model', () => {
  test('loads and predicts what the version that saved it predicted: intents, confidences and entities', () => {
    const model = new NluModel(saved);
    const ref = { now: new Date(recorded.now), offsetMinutes: recorded.offsetMinutes };
    assert.ok(recorded.answers.length > 50);
    let added = 0;
    for (const a of recorded.answers) {
      const answer = model.predict(a.text, ref, { intent: true, entity: true });
      assert.deepEqual(withoutAdded(answer), a.predicted, a.text);
      added += (answer.entities ?? []).filter((e) => ADDED.has(e.entity)).length;
      const ranked = model.rankedIntents(a.text);
      assert.deepEqual(
        ranked.map((r) => r.label),
        a.confidences.map((r) => r.label),
        a.text,
      );
      ranked.forEach((r, i) => assert.ok(Math.abs(r.confidence - a.confidences[i]!.confidence) <= 1e-12, a.text));
    }
    assert.ok(added > 0, 'the texts hold money the newer version answers as sys_money too');
  });
});
