import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseText, readNumber, readWrittenNumber, splitSentences } from '../../../../src/speech/tts/engine/normalise.js';

describe('Vietnamese number reading', () => {
  const cases: Array<[string, string]> = [
    ['0', 'không'],
    ['10', 'mười'],
    ['15', 'mười lăm'],
    ['21', 'hai mươi mốt'],
    ['24', 'hai mươi tư'],
    ['25', 'hai mươi lăm'],
    ['105', 'một trăm linh năm'],
    ['1005', 'một nghìn không trăm linh năm'],
    ['2024', 'hai nghìn không trăm hai mươi tư'],
    ['1500000', 'một triệu năm trăm nghìn'],
    ['1000000000000', 'một nghìn tỷ'],
  ];
  for (const [digits, words] of cases) test(`${digits} -> ${words}`, () => assert.equal(readNumber(digits), words));

  test('written forms: thousands dots, decimal commas, signs', () => {
    assert.equal(readWrittenNumber('1.500.000'), 'một triệu năm trăm nghìn');
    assert.equal(readWrittenNumber('5,5'), 'năm phẩy năm');
    assert.equal(readWrittenNumber('-7'), 'âm bảy');
    assert.equal(readWrittenNumber('3.14159'), 'ba phẩy một bốn một năm chín');
  });
});

describe('normaliseText', () => {
  const n = normaliseText;
  test('dates', () => {
    assert.match(n('Ngày 15/8/2024 trời mưa.'), /ngày mười lăm tháng tám năm hai nghìn không trăm hai mươi tư trời mưa/);
    assert.match(n('hạn 02-09-2025'), /ngày hai tháng chín năm hai nghìn không trăm hai mươi lăm/);
    assert.match(n('tháng 4/2024'), /tháng tư năm hai nghìn không trăm hai mươi tư/);
    assert.match(n('ngày 2/9'), /ngày hai tháng chín/);
    assert.doesNotMatch(n('ngày 45/13/2024'), /tháng mười ba/);
  });
  test('times', () => {
    assert.match(n('lúc 10:30'), /mười giờ ba mươi phút/);
    assert.match(n('lúc 8h30 và 9h'), /tám giờ ba mươi phút và chín giờ/);
    assert.match(n('07:05:09'), /bảy giờ năm phút chín giây/);
  });
  test('phone numbers digit by digit', () => {
    assert.match(n('Gọi 0912 345 678.'), /không chín một hai ba bốn năm sáu bảy tám/);
    assert.match(n('Gọi +84 912 345 678.'), /cộng tám bốn chín một hai/);
    assert.match(n('số 091.234.5678'), /không chín một hai ba bốn năm sáu bảy tám/);
  });
  test('money and percentages', () => {
    assert.match(n('giá 1.500.000đ'), /một triệu năm trăm nghìn đồng/);
    assert.match(n('giá 500.000 VNĐ'), /năm trăm nghìn đồng/);
    assert.match(n('$100'), /một trăm đô la/);
    assert.match(n('20 USD'), /hai mươi đô la Mỹ/);
    assert.match(n('tăng 5,5%'), /năm phẩy năm phần trăm/);
  });
  test('units', () => {
    assert.match(n('cách 12 km'), /mười hai ki lô mét/);
    assert.match(n('nặng 5kg'), /năm ki lô gam/);
    assert.match(n('60 km/h'), /sáu mươi ki lô mét trên giờ/);
    assert.match(n('30°C'), /ba mươi độ xê/);
    assert.match(n('100 m2'), /một trăm mét vuông/);
  });
  test('abbreviations and acronyms', () => {
    assert.match(n('UBND TP.HCM'), /ủy ban nhân dân thành phố Hồ Chí Minh/);
    assert.match(n('Công ty FPT'), /ép pê tê/);
    assert.match(n('sông NAM'), /NAM/, 'an upper-case Vietnamese word is not spelled');
  });
  test('URLs and e-mail', () => {
    assert.match(n('gửi abc@gmail.com'), /a còng gmail chấm com/);
    assert.match(n('xem https://www.fpt.ai/tts'), /vê kép vê kép vê kép chấm ép pê tê chấm a i gạch chéo/);
  });
  test('stray symbols, emoji and quotes say nothing or their name', () => {
    const out = n('A & B ** "trích" 😀 ~~ ©');
    assert.match(out, /và/);
    assert.doesNotMatch(out, /[*"~©😀]/u);
  });
  test('no digits survive', () => {
    assert.doesNotMatch(n('Năm 2024 có 366 ngày, mã 12345678901234567890, tỉ lệ 3.5, thứ 2, 5-10 người.'), /\d/);
  });
});

describe('splitSentences', () => {
  test('cuts at sentence ends and keeps parts under the limit', () => {
    const parts = splitSentences('Câu một. Câu hai! Câu ba? ' + 'dài '.repeat(300), 100);
    assert.ok(parts.length > 3);
    for (const part of parts) assert.ok(part.length <= 100, part);
    assert.equal(parts[0], 'Câu một. Câu hai! Câu ba?');
  });
  test('joins short sentences', () => {
    assert.deepEqual(splitSentences('Một. Hai. Ba.', 400), ['Một. Hai. Ba.']);
  });
});
