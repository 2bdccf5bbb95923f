import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cosineToSimilarity } from '../../../src/face/engine/similarity.js';
import { crossValidateMap, fitSimilarityMap, impostorTailThreshold, readLabels, summariseIdentities, type EmbeddedPhoto } from '../../../eval/face/identity.js';
import { seededRandom } from '../../../src/platform/random.js';

/** Unit vectors: each person a random direction, each photo that direction plus noise (so genuine cosines ~0.6, impostors ~0). */
function people(n: number, perPerson: number, noise: number, seed = 1): EmbeddedPhoto[] {
  const rand = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  const unit = (v: Float32Array) => {
    const len = Math.hypot(...v);
    return v.map((x) => x / len);
  };
  const out: EmbeddedPhoto[] = [];
  for (let p = 0; p < n; p++) {
    const centre = unit(Float32Array.from({ length: 64 }, gauss));
    for (let k = 0; k < perPerson; k++) {
      out.push({ file: `p${p}/${k}.jpg`, identity: `p${p}`, group: p % 2 ? 'odd' : 'even', embedding: unit(centre.map((x) => x + (noise / 8) * gauss())) });
    }
  }
  return out;
}

describe('face evaluation on labelled people', () => {
  it('joins identities from pairs.csv and refuses an impostor pair inside one identity', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'face-labels-'));
    fs.writeFileSync(path.join(dir, 'pairs.csv'), 'file_x,file_y,same_person\na.jpg,b.jpg,yes\nb.jpg,c.jpg,yes\na.jpg,d.jpg,no\n');
    const { photos } = readLabels(dir);
    assert.equal(new Set(photos.filter((p) => 'abc'.includes(p.file[0])).map((p) => p.identity)).size, 1);
    assert.notEqual(photos.find((p) => p.file === 'd.jpg')!.identity, photos.find((p) => p.file === 'a.jpg')!.identity);
    fs.appendFileSync(path.join(dir, 'pairs.csv'), 'a.jpg,c.jpg,no\n');
    assert.throws(() => readLabels(dir), /impostor pair/);
    fs.writeFileSync(path.join(dir, 'labels.csv'), 'file,identity,group\nx.jpg,anna,vn\ny.jpg,binh,vn\n');
    assert.deepEqual(readLabels(dir).photos, [
      { file: 'x.jpg', identity: 'anna', group: 'vn' },
      { file: 'y.jpg', identity: 'binh', group: 'vn' },
    ]);
  });

  it('counts every pair, a photo without a face as a rejected genuine pair, and search top-1', () => {
    const photos = people(6, 3, 1);
    photos[0].embedding = null;
    const s = summariseIdentities(photos);
    assert.equal(s.pairs.genuine, 6 * 3);
    assert.equal(s.pairs.impostor, (18 * 17) / 2 - 18);
    assert.deepEqual(s.noFace, ['p0/0.jpg']);
    // Two genuine pairs involve the faceless photo: they score -1 and can never be accepted.
    assert.equal(s.genuine.filter((c) => c === -1).length, 2);
    assert.ok(s.match.genuineAccepted <= 16);
    assert.equal(s.searchTop1.queries, 18);
    assert.ok(s.searchTop1.rank1 <= 17 && s.searchTop1.rank1 >= 15, `rank1 ${s.searchTop1.rank1}`);
    assert.deepEqual(
      s.groups.map((g) => [g.group, g.genuine]),
      [
        ['even', 9],
        ['odd', 9],
      ],
    );
    // A threshold above every genuine pair accepts none.
    const none = summariseIdentities(photos, {
      knots: [
        [-1, 0],
        [0.999, 0.8],
        [1, 1],
      ],
    });
    assert.equal(none.match.genuineAccepted, 0);
    assert.equal(none.searchTop1.rank1AtThreshold, 0);
  });

  it('puts the match threshold above the impostor tail and the search one above that', () => {
    const photos = people(40, 6, 1.1, 7);
    const s = summariseIdentities(photos);
    const fit = fitSimilarityMap(s.genuine, s.impostor);
    // FAR 1e-4 of these ~28,000 impostor pairs allows 2 at or above the threshold.
    assert.ok(s.impostor.filter((c) => c >= fit.match80).length <= 2, `80 at ${fit.match80}`);
    assert.ok(fit.match80 > s.impostorDist.p99);
    assert.ok(fit.search85 > fit.match80);
    for (let i = 1; i < fit.knots.length; i++) assert.ok(fit.knots[i][0] > fit.knots[i - 1][0] && fit.knots[i][1] >= fit.knots[i - 1][1]);
    assert.ok(Math.abs(cosineToSimilarity(fit.match80, fit.knots) - 0.8) < 1e-9);
    // A finer FAR never gives a lower threshold.
    assert.ok(impostorTailThreshold(s.impostor, 1e-5) >= impostorTailThreshold(s.impostor, 1e-4));
    assert.ok(impostorTailThreshold(s.impostor, 1e-2) < impostorTailThreshold(s.impostor, 1e-4));
  });

  it('cross-validates over people: every person held out once, held-out pairs only', () => {
    const photos = people(20, 4, 0.7, 3);
    const h = crossValidateMap(photos, 5);
    assert.equal(
      h.folds.reduce((a, f) => a + f.people, 0),
      20,
    );
    // Genuine pairs all stay inside a fold; impostor pairs only within the held-out fold (4 people x 4 photos each).
    assert.equal(h.match.genuine, 20 * 6);
    assert.equal(h.match.impostor, 5 * ((16 * 15) / 2 - 4 * 6));
    assert.ok(h.match.genuineAccepted > h.match.genuine / 2);
  });
});
