import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countErrors, editDistance, errorRate, normaliseForScoring, placeToneMark, readDigits } from '../../../src/speech/score.js';

describe('scoring normalisation', () => {
  test('old and new tone-mark placements are equal', () => {
    const pairs = [
      ['hòa', 'hoà'],
      ['thủy', 'thuỷ'],
      ['khỏe', 'khoẻ'],
      ['òa', 'oà'],
      ['ủy ban', 'uỷ ban'],
      ['qúy', 'quý'],
      ['khủyu', 'khuỷu'],
      ['Hòa Bình', 'HOÀ BÌNH'],
    ];
    for (const [old, modern] of pairs) {
      assert.equal(normaliseForScoring(old), normaliseForScoring(modern), `${old} / ${modern}`);
    }
    assert.equal(placeToneMark('hòa'), 'hoà');
    assert.equal(placeToneMark('thủy'), 'thuỷ');
  });

  test('the tone mark stays where only one placement is right', () => {
    // A vowel with its own diacritic, a final consonant, the u of qu and the i of gi.
    for (const word of ['người', 'tuổi', 'giữa', 'quốc', 'hoàng', 'mùa', 'mía', 'ngoài', 'xoáy', 'gì', 'nghiêng', 'thuở', 'cứu', 'quả']) {
      assert.equal(placeToneMark(word), word, word);
    }
    // Tone marks still tell words apart.
    assert.notEqual(normaliseForScoring('má'), normaliseForScoring('mà'));
    assert.notEqual(normaliseForScoring('hoà'), normaliseForScoring('hoa'));
  });

  test('decomposed (NFD) input equals composed (NFC)', () => {
    const text = 'Tiếng Việt có dấu';
    assert.equal(normaliseForScoring(text.normalize('NFD')), normaliseForScoring(text));
    assert.equal(normaliseForScoring(text), 'tiếng việt có dấu');
  });

  test('i and y spellings of one syllable are equal; y in a pair is kept', () => {
    assert.equal(normaliseForScoring('lý do kỹ thuật'), normaliseForScoring('lí do kĩ thuật'));
    assert.equal(normaliseForScoring('quý'), normaliseForScoring('quí'));
    assert.notEqual(normaliseForScoring('tay'), normaliseForScoring('tai'));
    assert.equal(normaliseForScoring('y tế'), 'y tế');
  });

  test('lower case and punctuation removed', () => {
    assert.equal(normaliseForScoring('Xin chào, các bạn! Hôm nay… “trời” đẹp? (Vâng) - được.'), 'xin chào các bạn hôm nay trời đẹp vâng được');
    assert.equal(normaliseForScoring('  ĐÀ NẴNG\n\tđà   nẵng '), 'đà nẵng đà nẵng');
  });

  test('digits read out as words', () => {
    assert.equal(readDigits('0'), 'không');
    assert.equal(readDigits('5'), 'năm');
    assert.equal(readDigits('10'), 'mười');
    assert.equal(readDigits('15'), 'mười lăm');
    assert.equal(readDigits('21'), 'hai mươi mốt');
    assert.equal(readDigits('24'), 'hai mươi tư');
    assert.equal(readDigits('105'), 'một trăm linh năm');
    assert.equal(readDigits('110'), 'một trăm mười');
    assert.equal(readDigits('2024'), 'hai nghìn không trăm hai mươi tư');
    assert.equal(readDigits('1000000'), 'một triệu');
    assert.equal(readDigits('1005000'), 'một triệu không trăm linh năm nghìn');
    assert.equal(readDigits('3000000000'), 'ba tỷ');
    assert.equal(readDigits('0912'), 'không chín một hai');
  });

  test('numbers in running text: thousands separators, decimals, percent', () => {
    assert.equal(normaliseForScoring('Giá 1.500.000 đồng'), 'giá một triệu năm trăm nghìn đồng');
    assert.equal(normaliseForScoring('1,500,000'), normaliseForScoring('1.500.000'));
    assert.equal(normaliseForScoring('5,5 km'), 'năm phẩy năm km');
    assert.equal(normaliseForScoring('tăng 50%'), 'tăng năm mươi phần trăm');
    assert.equal(normaliseForScoring('năm 2024'), normaliseForScoring('năm hai nghìn không trăm hai mươi tư'));
  });

  test('spoken number-word variants equal the digits', () => {
    assert.equal(normaliseForScoring('hai ngàn không trăm hai mươi bốn'), normaliseForScoring('2024'));
    assert.equal(normaliseForScoring('một trăm lẻ năm'), normaliseForScoring('105'));
    // Outside a number the words keep their meaning.
    assert.equal(normaliseForScoring('số lẻ'), 'số lẻ');
    assert.equal(normaliseForScoring('bốn người'), 'bốn người');
  });
});

describe('error rates', () => {
  test('edit distance', () => {
    assert.equal(editDistance([...'kitten'], [...'sitting']), 3);
    assert.equal(editDistance([], [1, 2]), 2);
  });
  test('word and character errors after normalisation', () => {
    const same = countErrors('Hòa bình, năm 2024.', 'hoà bình năm hai nghìn không trăm hai mươi tư');
    assert.equal(same.wordErrors, 0);
    assert.equal(same.charErrors, 0);
    const one = countErrors('xin chào các bạn', 'xin chào bạn');
    assert.equal(one.wordErrors, 1);
    assert.equal(one.words, 4);
    assert.equal(one.charErrors, 3);
    assert.equal(one.chars, 13);
    assert.equal(errorRate(1, 4), 0.25);
    assert.equal(errorRate(0, 0), 0);
    assert.equal(errorRate(2, 0), 1);
  });
});
