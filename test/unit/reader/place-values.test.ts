/**
 * Unit tests of how a place (home, address) is found and spelled: its value's lines on real cards (the label's
 * own line, lines indented or broken at a gap, tall detector boxes), what is left of its label, and the
 * gazetteer keeping the printed spelling. Every card here is drawn; names are the official list's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DOCUMENTS } from '../../../src/reader/documents/id-card/model.js';
import { dropTwinLines, labelRunLength, splitLabelGlue, substringDistance, type CardWord } from '../../../src/reader/pipeline/anchors.js';
import { parseAddress, placedAsRead, printedTypeWord, streetTypeOf, typeLettersRead } from '../../../src/reader/pipeline/address.js';
import { normaliseFields, rawFromLines, typeLettersBonus } from '../../../src/reader/pipeline/fields.js';
import { LAYOUTS } from '../../../src/reader/layouts.js';
import { line, readWords as read } from '../../support/reader/drawn-words.js';
import { fieldProbability } from '../../../src/reader/pipeline/confidence.js';
import { newStyleTones } from '../../../src/reader/pipeline/text.js';

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

  it('drops a label rest read garbled beside a place, up to its last piece read ("Ự r22C PJace of ƠI Origir")', () => {
    const r = read('cccd_chip_front', [...line('Quê quán Ự r22C PJace of ƠI Origir', 300, 470), ...line('Phúc Than, Than Uyên, Lai Châu', 300, 500)]);
    assert.equal(r.text.home, 'Phúc Than, Than Uyên, Lai Châu');
    // A value beside its label with no piece of the label in it is kept whole.
    const v = read('cccd_chip_front', [...line('Quê quán: Thành Phố Lai Châu, Lai Châu', 300, 470)]);
    assert.equal(v.text.home, 'Thành Phố Lai Châu, Lai Châu');
  });

  it('gives a row read twice to the lower place that holds it, not also to the place above', () => {
    // The first reading lost the address's label row: the home goes on over the address's second line.
    const first = read('cccd_chip_front', [
      ...line('Quê quán / Place of origin', 300, 470),
      ...line('Phúc Than, Than Uyên, Lai Châu', 300, 500),
      ...line('Mường Cang, Than Uyên, Lai Châu', 300, 530),
    ]);
    assert.equal(first.text.home, 'Phúc Than, Than Uyên, Lai Châu Mường Cang, Than Uyên, Lai Châu');
    // The rows' own reading finds the address (its line a pixel off: another reading of the same row).
    const rows = read('cccd_chip_front', [...line('Nơi thường trú / Place of residence: Bản Mè,', 300, 505), ...line('Mường Cang, Than Uyên, Lai Châu', 301, 531)]);
    assert.equal(rows.text.address, 'Bản Mè, Mường Cang, Than Uyên, Lai Châu');
    const merged = { ...first.values, address: rows.values.address };
    dropTwinLines(merged, DOCUMENTS.cccd_chip_front);
    assert.equal(merged.home!.words.map((w) => w.text).join(' '), 'Phúc Than, Than Uyên, Lai Châu');
    assert.equal(merged.home!.lines.length, 1);
    assert.equal(merged.address!.words.map((w) => w.text).join(' '), 'Bản Mè, Mường Cang, Than Uyên, Lai Châu');
    // The two readings of the row differ in a letter of a word and in a mark read unsurely: still a twin; a line
    // with a word of its own read surely is not.
    const otherRows = read('cccd_chip_front', [...line('Nơi thường trú / Place of residence: Bản Mè,', 300, 505), ...line('Mường Cang, Than Uyên, Lal Châu', 301, 531)]);
    const first2 = read('cccd_chip_front', [
      ...line('Quê quán / Place of origin', 300, 470),
      ...line('Phúc Than, Than Uyên, Lai Châu', 300, 500),
      ...line('Mường Cang, Than Uyên, Lai Châu ~', 300, 530),
    ]);
    first2.values.home!.lines[1].at(-1)!.conf = 10;
    const merged2 = { ...first2.values, address: otherRows.values.address };
    dropTwinLines(merged2, DOCUMENTS.cccd_chip_front);
    assert.equal(merged2.home!.lines.length, 1);
    const first3 = read('cccd_chip_front', [
      ...line('Quê quán / Place of origin', 300, 470),
      ...line('Phúc Than, Than Uyên, Lai Châu', 300, 500),
      ...line('Mường Cang, Than Uyên, Lai Châu Tân', 300, 530),
    ]);
    const merged3 = { ...first3.values, address: otherRows.values.address };
    dropTwinLines(merged3, DOCUMENTS.cccd_chip_front);
    assert.equal(merged3.home!.lines.length, 2);
    // A place's own line that merely reads like a line of the place below (the same commune) is kept: its first.
    const same = {
      home: rows.values.address!,
      address: { ...rows.values.address!, label: { ...rows.values.address!.label, box: { ...rows.values.address!.label.box, y: 600 } } },
    };
    dropTwinLines(same, DOCUMENTS.cccd_chip_front);
    assert.equal(same.home.lines.length, 1);
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
    assert.equal(newStyleTones('Hòa'), newStyleTones('Hoà'));
    assert.equal(newStyleTones('Thúy'), 'Thuý');
    assert.notEqual(newStyleTones('Hoàn'), newStyleTones('Hòan'));
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

  it('keeps the placement read word by word: in a unit the list corrects, and in a district restored from its ward', () => {
    assert.equal(placedAsRead('Hòa Vang', 'Hoà Vàng'), 'Hoà Vang');
    assert.equal(placedAsRead('Hòa Vang', 'Hòa Vang'), 'Hòa Vang');
    assert.equal(placedAsRead('Hòa Vang', 'Hoá Vang'), 'Hòa Vang', 'another tone mark is a misreading, not a placement');
    // One word of the district misread ("Vàng"): the list corrects it, the other word keeps the placement read.
    const corrected = parseAddress('Hòa Bắc, Hoà Vàng, Đà Nẵng');
    assert.equal(corrected.text, 'Hòa Bắc, Hoà Vang, Đà Nẵng');
    assert.equal(corrected.district, 'Hòa Vang');
    // The district's second word lost: the ward places it, the word read keeps its marks.
    const restored = parseAddress('Hòa Bắc, Hoà, Đà Nẵng');
    assert.equal(restored.text, 'Hòa Bắc, Hoà Vang, Đà Nẵng');
    assert.equal(restored.spellingUnsure, true);
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
    // A clean capitalised word one letter and a mark from a type is a name ("Thới" is not Thôn); before a number,
    // or damaged, it is the type; one letter misread with the rest as printed is the type.
    assert.equal(streetTypeOf('Thới', 'Thuận'), undefined);
    assert.equal(streetTypeOf('Thới', '4'), 'Thôn');
    assert.equal(streetTypeOf('Xóa', 'Tân'), 'Xóm');
    assert.equal(parseAddress('Thới Lai, Phúc Than, Than Uyên, Lai Châu').street, 'Thới Lai');
  });

  it('keeps the district before a province read exactly after a missed comma', () => {
    // "Than Uyên" is two letters from "Thái Nguyên": the exact province at the end wins over that correction.
    const a = parseAddress('Phúc Than, Than Uyên Lai Châu');
    assert.equal(a.text, 'Phúc Than, Than Uyên, Lai Châu');
    assert.equal(a.district, 'Than Uyên');
  });

  it('takes a district read exactly, its ward before it, over a province found only by correction', () => {
    // The province's line lost: "Than Uyên" is two letters from "Thái Nguyên", but it is a district read exactly.
    const a = parseAddress('Phúc Than, Than Uyên');
    assert.equal(a.text, 'Phúc Than, Than Uyên, Lai Châu');
    assert.equal(a.province, 'Lai Châu');
    assert.equal(parseAddress('Bản Mè, Phúc Than, Than Uyên Lai').province, 'Lai Châu');
    // A province misread with no district read exactly is still corrected.
    assert.equal(parseAddress('Phúc Than, Than Uyên, Lai Chau').province, 'Lai Châu');
    assert.equal(parseAddress('Quảng Em').province, 'Quảng Nam');
  });

  it('takes a whole district read right for the district, not for the start of a province', () => {
    // "Nam Trực" starts like the province Nam Định: read whole, it is that province's district.
    const a = parseAddress('Nam Giang, Nam Trực');
    assert.equal(a.text, 'Nam Giang, Nam Trực, Nam Định');
    assert.equal(a.district, 'Nam Trực');
  });

  it('counts the letters of a street type word read as printed, and prefers the reading that kept more', () => {
    assert.equal(typeLettersRead('t{hóm 9'), 3);
    assert.equal(typeLettersRead('tóm 9'), 2);
    assert.equal(typeLettersRead('Thôn Tân Lập'), 4);
    assert.equal(typeLettersRead('Văn Phú'), undefined);
    assert.equal(typeLettersRead(''), undefined);
    assert.equal(parseAddress('hóm 9 Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên').typeLettersRead, 3);
    assert.equal(parseAddress('Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên').typeLettersRead, undefined);
    // A second reading that lost the type's first letter ("óm 9", repaired to Xóm) is not the better one.
    const place = 'Phường Bãi Bông, Thành phố Phổ Yên, Thái Nguyên';
    assert.deepEqual(typeLettersBonus(`hóm 9 ${place}`, `óm 9 ${place}`), [0.3, 0]);
    assert.deepEqual(typeLettersBonus(`tóm 9, ${place}`, `t{hóm 9, ${place}`), [0, 0.3]);
    // Equal, or one reading with no type word: no preference.
    assert.deepEqual(typeLettersBonus(`Khóm 9, ${place}`, `Khóm 9, ${place}`), [0, 0]);
    assert.deepEqual(typeLettersBonus(`9, ${place}`, `Khóm 9, ${place}`), [0, 0]);
    assert.deepEqual(typeLettersBonus(undefined, `Khóm 9, ${place}`), [0, 0]);
  });
});
