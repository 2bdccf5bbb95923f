import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseVietnamMobile } from '../../../src/credit/phone.js';

/** [written form, expected 84xxxxxxxxx]: the forms real customer files and clients send. */
const VALID: [string, string][] = [
  ['0912345678', '84912345678'],
  ['+84912345678', '84912345678'],
  ['84912345678', '84912345678'],
  ['0084912345678', '84912345678'],
  ['+84 912 345 678', '84912345678'],
  ['0912 345 678', '84912345678'],
  ['0912.345.678', '84912345678'],
  ['0912-345-678', '84912345678'],
  ['(+84) 912-345-678', '84912345678'],
  ['+84 (0) 912 345 678', '84912345678'],
  ['84 0912345678', '84912345678'],
  ['  0912345678  ', '84912345678'],
  ['912345678', '84912345678'],
  ['0321234567', '84321234567'],
  ['+84 32 123 4567', '84321234567'],
  ['0701234567', '84701234567'],
  ['0861234567', '84861234567'],
  ['0561234567', '84561234567'],
  ['0591234567', '84591234567'],
  ['0981/234/567', '84981234567'],
  // Eleven-digit numbers from before the 2018 renumbering.
  ['0162 345 6789', '84323456789'],
  ['+84 168 123 4567', '84381234567'],
  ['01201234567', '84701234567'],
];

/** [written form, why it is refused]. */
const INVALID: [string, string][] = [
  ['', 'empty'],
  ['   ', 'empty'],
  ['02438123456', 'not_mobile'], // Hanoi landline
  ['+84 24 3812 3456', 'not_mobile'],
  ['19001234', 'not_mobile'], // premium-rate service number
  ['+1 202 555 0123', 'not_vietnamese'],
  ['+44 7911 123456', 'not_vietnamese'],
  ['091234567', 'invalid'], // a digit short
  ['09123456789', 'invalid'], // a digit long
  ['0912345678 ext 12', 'malformed'],
  ['0912abc678', 'malformed'],
  ['phone', 'malformed'],
  ['0912345678;DROP TABLE', 'malformed'],
  ['+84+912345678', 'malformed'],
  ['1'.repeat(50), 'malformed'],
  ['0012345678', 'invalid'],
  ['0112345678', 'invalid'],
];

describe('phone normalisation', () => {
  for (const [written, expected] of VALID) {
    test(`accepts ${JSON.stringify(written)}`, () => {
      assert.deepEqual(normaliseVietnamMobile(written), { ok: true, phone: expected });
    });
  }
  for (const [written, reason] of INVALID) {
    test(`refuses ${JSON.stringify(written.slice(0, 30))} (${reason})`, () => {
      const result = normaliseVietnamMobile(written);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.reason, reason);
        assert.ok(result.message.length > 10);
      }
    });
  }
  test('refuses what is not text', () => {
    assert.equal(normaliseVietnamMobile(undefined).ok, false);
    assert.equal(normaliseVietnamMobile(912345678).ok, false);
  });
  test('the table has at least 20 forms of each kind', () => {
    assert.ok(VALID.length >= 20 && INVALID.length >= 15 && VALID.length + INVALID.length >= 40);
  });
});
