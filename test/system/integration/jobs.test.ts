import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exponentialBackoff } from '../../../src/platform/jobs/queue.js';
import { postgresHarness, sqliteHarness } from '../../support/platform/job-queue-backends.js';
import { jobQueueSuite } from '../../support/platform/job-queue-suite.js';

test('default backoff doubles from 1 s, is capped at 5 min and adds at most 10% jitter', () => {
  const expected = [1000, 2000, 4000, 8000];
  for (let attempt = 1; attempt <= expected.length; attempt++) {
    const delay = exponentialBackoff(attempt);
    assert.ok(delay >= expected[attempt - 1] && delay <= expected[attempt - 1] * 1.1, `attempt ${attempt}: ${delay}`);
  }
  const capped = exponentialBackoff(40);
  assert.ok(capped >= 300_000 && capped <= 330_000, `capped: ${capped}`);
});

jobQueueSuite(sqliteHarness);
jobQueueSuite(postgresHarness);
