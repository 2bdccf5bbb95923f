import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { measureEntities } from '../../../src/nlu/engine/measures.js';
import { NluModel, trainModel } from '../../../src/nlu/engine/model.js';
import { systemEntities, type ReferenceTime } from '../../../src/nlu/engine/system-entities.js';
import { prepare, slicePoints } from '../../../src/nlu/engine/text.js';

const REF: ReferenceTime = { now: new Date('2026-11-25T13:00:00Z'), offsetMinutes: 420 };

function measures(text: string) {
  const prepared = prepare(text);
  return measureEntities(prepared, systemEntities(prepared, REF)).map((m) => [m.entity, slicePoints(text, m.start, m.end), m.realValue]);
}

describe('system entities: money, durations, temperatures', () => {
  test('money: a currency word or sign, a price written with its đ, chat spellings of thousands and millions', () => {
    assert.deepEqual(measures('chuyển 500 nghìn đồng cho mẹ'), [['sys_money', '500 nghìn đồng', '500000 VND']]);
    assert.deepEqual(measures('nạp 2tr vào ví'), [['sys_money', '2tr', '2000000 VND']]);
    assert.deepEqual(measures('2tr5 thôi'), [['sys_money', '2tr5', '2500000 VND']]);
    assert.deepEqual(measures('giá 1.200.000đ'), [['sys_money', '1.200.000đ', '1200000 VND']]);
    assert.deepEqual(measures('bơm 500 k'), [['sys_money', '500 k', '500000 VND']]);
    assert.deepEqual(measures('mượn 2 củ'), [['sys_money', '2 củ', '2000000 VND']]);
    assert.deepEqual(measures('đổi 10 đô la'), [['sys_money', '10 đô la', '10 USD']]);
    assert.deepEqual(measures('$5 một tháng'), [
      ['sys_money', '$5', '5 USD'],
      ['sys_duration', 'một tháng', 'P1M'],
    ]);
    assert.deepEqual(measures('hai trăm euro'), [['sys_money', 'hai trăm euro', '200 EUR']]);
    assert.deepEqual(measures('500 nghìn người'), [], 'a count of people is a number, not money');
    assert.deepEqual(measures('2 triệu rưỡi'), [], 'without a currency: a number');
  });

  test('durations in ISO 8601: the unit after the count, a half with rưỡi or nửa', () => {
    assert.deepEqual(measures('trong 2 tiếng'), [['sys_duration', '2 tiếng', 'PT2H']]);
    assert.deepEqual(measures('1 tiếng rưỡi nữa'), [['sys_duration', '1 tiếng rưỡi', 'PT1H30M']]);
    assert.deepEqual(measures('chờ nửa tiếng'), [['sys_duration', 'nửa tiếng', 'PT30M']]);
    assert.deepEqual(measures('thêm nữa tiếng'), [], '"nữa" (more) is not "nửa" (half)');
    assert.deepEqual(measures('ba mươi phút'), [['sys_duration', 'ba mươi phút', 'PT30M']]);
    assert.deepEqual(measures('45 giây'), [['sys_duration', '45 giây', 'PT45S']]);
    assert.deepEqual(measures('nghỉ 3 ngày'), [['sys_duration', '3 ngày', 'P3D']]);
    assert.deepEqual(measures('ba tuần'), [['sys_duration', 'ba tuần', 'P3W']]);
    assert.deepEqual(measures('gửi kỳ hạn 6 tháng'), [['sys_duration', '6 tháng', 'P6M']]);
    assert.deepEqual(measures('vay 5 năm'), [['sys_duration', '5 năm', 'P5Y']]);
    assert.deepEqual(measures('năm 2025'), [], 'a year');
    assert.deepEqual(measures('15 tháng 3'), [], 'a date: a month number follows');
    assert.deepEqual(measures('ngày 15/3'), [], 'a date');
  });

  test('temperatures in degrees Celsius, in words or digits, below zero, from Fahrenheit', () => {
    assert.deepEqual(measures('để điều hoà 25 độ'), [['sys_temperature', '25 độ', 25]]);
    assert.deepEqual(measures('hai mươi lăm độ C'), [['sys_temperature', 'hai mươi lăm độ C', 25]]);
    assert.deepEqual(measures('ngoài trời 30°C'), [['sys_temperature', '30°C', 30]]);
    assert.deepEqual(measures('Sa Pa âm 2 độ'), [['sys_temperature', 'âm 2 độ', -2]]);
    assert.deepEqual(measures('-5 độ'), [['sys_temperature', '-5 độ', -5]]);
    assert.deepEqual(measures('77 độ F'), [['sys_temperature', '77 độ F', 25]]);
    assert.deepEqual(measures('troi 30 do'), [['sys_temperature', '30 do', 30]], 'typed without diacritics');
  });

  test('a prediction answers the measure with its number as subentity, and the number as before', () => {
    const model = new NluModel(
      trainModel({
        examples: [
          { text: 'chuyển tiền cho mẹ', intent: 'transfer', entities: [] },
          { text: 'bật điều hoà', intent: 'aircon', entities: [] },
        ],
        entities: [],
        parts: { intent: false, entity: true },
        options: { holdout: 0 },
      }),
    );
    const text = 'chuyển 500 nghìn đồng trong 2 tiếng';
    const found = model.extract(text, REF).map((e) => [e.entity, e.value, e.real_value, e.subentities.map((s) => [s.entity, s.value, s.real_value])]);
    assert.deepEqual(found, [
      ['sys_money', '500 nghìn đồng', '500000 VND', [['sys_number', '500 nghìn', 500000]]],
      ['sys_number', '500 nghìn', 500000, []],
      ['sys_duration', '2 tiếng', 'PT2H', [['sys_number', '2', 2]]],
      ['sys_number', '2', 2, []],
    ]);
  });
});
