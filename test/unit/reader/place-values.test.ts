/**
 * Unit tests of how a place (home, address) is found and spelled: its value's lines on real cards (the label's
 * own line, lines indented or broken at a gap, tall detector boxes), what is left of its label, and the
 * gazetteer keeping the printed spelling. Every card here is drawn; names are the official list's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelRunLength, splitLabelGlue, substringDistance, type CardWord } from '../../../src/reader/pipeline/anchors.js';
import { parseAddress, printedTypeWord, streetTypeOf } from '../../../src/reader/pipeline/address.js';
import { normaliseFields, rawFromLines } from '../../../src/reader/pipeline/fields.js';
import { LAYOUTS } from '../../../src/reader/layouts.js';
import { line, readWords as read } from '../../support/reader/drawn-words.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { toneKey } from '../../../src/reader/pipeline/text.js';

const end = (ws: CardWord[]) => ws[ws.length - 1].left + ws[ws.length - 1].width;

describe('a place value on real cards', () => {
  it('splits the first word OCR glued to the label at a mark ("residence\'€hóm 9")', () => {
    const r = read('cccd_chip_front', [
      ...line("Nơi thường trú / Place of residence'€hóm 9", 300, 540),
      ...line('Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên', 300, 572),
    ]);
    assert.equal(r.text.address, 'hóm 9 Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên');
    const w: CardWord = { text: "residene'hu", conf: 55, left: 100, top: 0, width: 110, height: 20 };
    const parts = splitLabelGlue(w, 'placeofresidence');
    assert.deepEqual(
      parts?.map((p) => p.text),
      ["residene'", 'hu'],
    );
    assert.equal(parts![1].left + parts![1].width, w.left + w.width);
    // A value word that merely follows a mark is not split: its first part is no piece of the label.
    assert.equal(splitLabelGlue({ ...w, text: "Ngách'35" }, 'placeofresidence'), undefined);
  });

  it('drops what is left of a bilingual label read apart from its first half ("Quê quán" | "Piace of")', () => {
    const r = read('cccd_chip_front', [...line('Quê quán Piace of', 300, 470), ...line('Phúc Than, Than Uyên, Lai Châu', 300, 500)]);
    assert.equal(r.text.home, 'Phúc Than, Than Uyên, Lai Châu');
    // The run with a stray mark before it; the value's own first word is never part of it.
    assert.equal(labelRunLength(line('Í Place of residence T hôn Tân', 0, 0), 'placeofresidence'), 4);
    assert.equal(labelRunLength(line('Thôn 3, Phúc Than', 0, 0), 'placeofresidence'), 0);
    assert.equal(substringDistance('piaceof', 'placeoforigin'), 1);
  });

  it('takes a next line printed indented under the middle of the line above (the 2016 card)', () => {
    const home = line('Quê quán: Xã Phúc Than, Huyện', 300, 450);
    const address = line('Nơi thường trú: Phường Bãi Bông,', 300, 515);
    const r = read('cccd_12_front', [
      ...home,
      ...line('Than Uyên, Lai Châu', 480, 481),
      ...address,
      ...line('Thành phố Phổ Yên, Thái Nguyên', 450, 548),
      // The expiry, left of the labels' column, is no line of the address.
      ...line('Có giá trị đến: 01/01/2040', 20, 580),
    ]);
    assert.equal(r.text.home, 'Xã Phúc Than, Huyện Than Uyên, Lai Châu');
    assert.equal(r.text.address, 'Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên');
    assert.ok(end(home) > 480);
  });

  it("looks beyond a gap on the label's row when only the rest of the label was beside it", () => {
    const label = line('Nơi thường trú I Place of', 300, 530);
    const damaged = { text: 'rosidenoe”9', conf: 21, left: end(label) + 50, top: 528, width: 118, height: 22 };
    const value = line('7 Ngách 12/40 Trần Phú', damaged.left + damaged.width + 50, 531);
    const r = read('cccd_chip_front', [...label, damaged, ...value, ...line('Phúc Than, Than Uyên, Lai Châu', 300, 562)]);
    assert.equal(r.text.address, '7 Ngách 12/40 Trần Phú Phúc Than, Than Uyên, Lai Châu');
  });

  it('takes the first line of a label printed alone, starting right of the label and a little lower', () => {
    const r = read('cccd_12_front', [...line('Nơi thường trú:', 270, 496), ...line('Phúc Than, Than Uyên,', 430, 513), ...line('Lai Châu', 495, 545)]);
    assert.equal(r.text.address, 'Phúc Than, Than Uyên, Lai Châu');
  });

  it('leaves to the address the value printed beyond a gap after its label, under the home', () => {
    const label = line('Nơi thường trú / Place of residence:', 300, 532);
    const r = read('cccd_chip_front', [
      ...line('Quê quán / Place of origin: Phúc Than, Than Uyên, Lai Châu', 300, 501),
      ...label,
      ...line('Khu phố 4, Bãi Bông, Phổ Yên, Thái', end(label) + 60, 529),
      ...line('Nguyên', 300, 562),
    ]);
    assert.equal(r.text.home, 'Phúc Than, Than Uyên, Lai Châu');
    assert.equal(r.text.address, 'Khu phố 4, Bãi Bông, Phổ Yên, Thái Nguyên');
  });

  it('skips a row of background pattern read as marks, and takes the line under it', () => {
    const r = read('cccd_chip_front', [
      ...line('Nơi thường trú / Place of residence: Thôn 3', 300, 540),
      ...line('~. xX ;é S~-S', 330, 557, 10),
      ...line('Phúc Than, Than Uyên, Lai Châu', 300, 580),
    ]);
    assert.equal(r.text.address, 'Thôn 3 Phúc Than, Than Uyên, Lai Châu');
  });

  it('joins a value line the detector broke at a gap, whichever piece lies higher', () => {
    const left = line('Phúc Than, Than', 300, 572);
    for (const dy of [2, -6]) {
      const r = read('cccd_chip_front', [...line('Nơi thường trú / Place of residence: Thôn 3', 300, 540), ...left, ...line('Uyên, Lai Châu', end(left) + 50, 572 + dy)]);
      assert.equal(r.text.address, 'Thôn 3 Phúc Than, Than Uyên, Lai Châu', `piece ${dy} px lower`);
    }
  });

  it("takes the next line when the detector's tall boxes overlap the label's row by a third", () => {
    const r = read('cccd_chip_front', [
      ...line('Nơi thường trú / Place of residence: Thôn 3', 300, 540, 95, 40),
      ...line('Phúc Than, Than Uyên, Lai Châu', 300, 565, 95, 40),
    ]);
    assert.equal(r.text.address, 'Thôn 3 Phúc Than, Than Uyên, Lai Châu');
  });
});

describe('a place spelled as printed', () => {
  it('keeps the tone-mark placement printed ("Hòa" / "Hoà"), and says the spelling is unsure', () => {
    assert.equal(toneKey('Hòa'), toneKey('Hoà'));
    assert.equal(toneKey('Thúy'), 'Thuý');
    assert.notEqual(toneKey('Hoàn'), toneKey('Hòan'));
    const old = parseAddress('Xã Xuân Hòa, Huyện Bảo Yên, Tỉnh Lào Cai');
    assert.equal(old.text, 'Xã Xuân Hòa, Huyện Bảo Yên, Tỉnh Lào Cai');
    assert.equal(old.ward, 'Xuân Hoà');
    assert.equal(old.spellingUnsure, true);
    const same = parseAddress('Xã Xuân Hoà, Huyện Bảo Yên, Tỉnh Lào Cai');
    assert.equal(same.spellingUnsure, undefined);
    // A validated place whose spelling is in doubt stays under 80.
    const n = normaliseFields(LAYOUTS.cccd_chip_front, { address: rawFromLines('address', [line('Xã Xuân Hòa, Huyện Bảo Yên, Tỉnh Lào Cai', 0, 0, 97)]) });
    assert.ok(fieldProbability(n.fields.address!) < 80);
  });

  it('prints a unit type word as printed: another case, an abbreviation, a mark misread; the list word when damaged', () => {
    assert.equal(printedTypeWord('Thành Phố', 'Thành phố'), 'Thành Phố');
    assert.equal(printedTypeWord('TP', 'Thành phố'), 'TP');
    assert.equal(printedTypeWord('Thành Phó', 'Thành phố'), 'Thành Phố');
    assert.equal(printedTypeWord('Huvên', 'Huyện'), 'Huyện');
    assert.equal(printedTypeWord('TX', 'Thành phố'), 'Thành phố');
    // A two-word type one letter off is still a type, answered in the list's spelling.
    assert.equal(parseAddress('Thị tần Than Uyên, Than Uyên, Lai Châu').text, 'Thị trấn Than Uyên, Than Uyên, Lai Châu');
    assert.equal(parseAddress('Phường Bãi Bông, TP Phổ Yên, Thái Nguyên').text, 'Phường Bãi Bông, TP Phổ Yên, Thái Nguyên');
    assert.equal(parseAddress('Phường Bãi Bông, Thành Phố Phổ Yên, Thái Nguyên').text, 'Phường Bãi Bông, Thành Phố Phổ Yên, Thái Nguyên');
  });

  it('repairs a damaged street type word, but not a village name one letter from one', () => {
    assert.equal(streetTypeOf('t{hóm', '9'), 'Khóm');
    assert.equal(streetTypeOf('hóm', '12'), 'Khóm');
    assert.equal(streetTypeOf('hu', '7'), 'Khu');
    assert.equal(streetTypeOf('[hôn', 'Tân'), 'Thôn');
    assert.equal(streetTypeOf('Ấn', '4'), 'Ấp');
    assert.equal(streetTypeOf('Văn', 'Phú,'), undefined);
    assert.equal(streetTypeOf('Văn', '4'), 'Bản');
    // Abbreviated types are street words, kept as printed.
    assert.equal(streetTypeOf('Kv', 'Tân'), 'Kv');
    assert.equal(streetTypeOf('TDP', 'Tân'), 'TDP');
    assert.equal(parseAddress('KV Tân Lập, Phúc Than, Than Uyên, Lai Châu').street, 'KV Tân Lập');
    assert.equal(parseAddress('T hôn Tân Lập, Phúc Than, Than Uyên, Lai Châu').street.split(',')[0], 'Thôn Tân Lập');
    assert.equal(parseAddress('Văn Phú, Phúc Than, Than Uyên, Lai Châu').street, 'Văn Phú');
  });

  it('keeps the district before a province read exactly after a missed comma', () => {
    // "Than Uyên" is two letters from "Thái Nguyên": the exact province at the end wins over that correction.
    const a = parseAddress('Phúc Than, Than Uyên Lai Châu');
    assert.equal(a.text, 'Phúc Than, Than Uyên, Lai Châu');
    assert.equal(a.district, 'Than Uyên');
  });

  it('takes a whole district read right for the district, not for the start of a province', () => {
    // "Nam Trực" starts like the province Nam Định: read whole, it is that province's district.
    const a = parseAddress('Nam Giang, Nam Trực');
    assert.equal(a.text, 'Nam Giang, Nam Trực, Nam Định');
    assert.equal(a.district, 'Nam Trực');
  });
});
