/** The platform's UUIDv7s: the version and variant bits, the creation time, order within one process, no repeats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/platform/ids.js';

test('ids are UUIDv7s in creation order, with the time they were made, and never repeat', () => {
  const before = Date.now();
  // More than the random buffer holds, so it is refilled several times.
  const ids = Array.from({ length: 5000 }, () => uuidv7());
  const after = Date.now();
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids, 'sorted as made');
  const ms = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  assert.ok(ms(ids[0]!) >= before && ms(ids.at(-1)!) <= after, 'the time part is the creation time');
  // The random parts vary (not a buffer stuck on one word): the last 8 hex digits take many values.
  assert.ok(new Set(ids.map((id) => id.slice(-8))).size > 4900);
});
