import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sidesAlike } from '../../../src/reader/pipeline/locate.js';

describe("a card's outline in an image of a card's shape", () => {
  it('is a quadrilateral whose opposite sides are of alike lengths', () => {
    // Square on, and seen a little from one side (the far side 10% shorter): a card.
    assert.equal(sidesAlike([{ x: 10, y: 10 }, { x: 910, y: 12 }, { x: 905, y: 580 }, { x: 12, y: 578 }]), true);
    assert.equal(sidesAlike([{ x: 50, y: 20 }, { x: 860, y: 20 }, { x: 905, y: 580 }, { x: 5, y: 580 }]), true);
  });
  it('is not one whose top is a fifth shorter than its bottom (a corner found on the print inside the card)', () => {
    assert.equal(sidesAlike([{ x: 280, y: 40 }, { x: 875, y: 40 }, { x: 850, y: 585 }, { x: 7, y: 585 }]), false);
    // Nor one whose left side is half its right side.
    assert.equal(sidesAlike([{ x: 10, y: 150 }, { x: 900, y: 10 }, { x: 900, y: 590 }, { x: 10, y: 450 }]), false);
  });
});
