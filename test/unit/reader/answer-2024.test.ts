/** The answer shape of the 2024 citizen card ("CĂN CƯỚC"): its type, type_new and the fields each side prints. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReadCard } from '../../../src/reader/pipeline/run.js';
import { ReaderService } from '../../../src/reader/service.js';

// idrItem only shapes a card already read: no pool, store or settings are used.
const service = new ReaderService(undefined as never, undefined as never, 'native', undefined as never, undefined as never);
const card = (kind: ReadCard['kind'], fields: ReadCard['fields'], addressEntities?: ReadCard['addressEntities']): ReadCard => ({
  ok: true,
  kind,
  fields,
  addressEntities,
  overall: 90,
  corners: [],
  timings: {},
});

describe('2024 citizen card answer', () => {
  it('front: chip type, its own type_new, N/A for what the front does not print', () => {
    const item = service.idrItem(card('cccd_2024_front', { id: { value: '001090012345', prob: 98.5 }, name: { value: 'NGUYỄN VĂN AN', prob: 95 } }));
    assert.equal(item.type, 'chip_front');
    assert.equal(item.type_new, 'cccd_2024_front');
    assert.equal(item.id, '001090012345');
    assert.equal(item.id_prob, '98.50');
    for (const f of ['home', 'address', 'doe']) assert.equal(item[f], 'N/A', f);
    assert.deepEqual(item.address_entities, { province: '', district: '', ward: '', street: '' });
  });
  it('back: residence as address with its entities, place of birth registration, expiry, and no front fields', () => {
    const entities = { province: 'Lạng Sơn', district: 'Bắc Sơn', ward: 'Tân Lập', street: 'Số 5 Trần Hưng Đạo' };
    const item = service.idrItem(
      card(
        'cccd_2024_back',
        {
          address: { value: 'Số 5 Trần Hưng Đạo, Tân Lập, Bắc Sơn, Lạng Sơn', prob: 98 },
          pob: { value: 'Châu Thành, Sóc Trăng', prob: 97 },
          doe: { value: '02/09/2036', prob: 99 },
        },
        entities,
      ),
    );
    assert.equal(item.type, 'chip_back');
    assert.equal(item.type_new, 'cccd_2024_back');
    assert.equal(item.address, 'Số 5 Trần Hưng Đạo, Tân Lập, Bắc Sơn, Lạng Sơn');
    assert.deepEqual(item.address_entities, entities);
    assert.equal(item.pob, 'Châu Thành, Sóc Trăng');
    assert.equal(item.issue_date, 'N/A');
    assert.equal(item.features, 'N/A');
    assert.equal(item.name, undefined);
  });
  it('the chip card back keeps its answer (no type_new, no address)', () => {
    const item = service.idrItem(card('cccd_chip_back', { issue_date: { value: '01/01/2020', prob: 99 } }));
    assert.equal(item.type_new, undefined);
    assert.equal(item.address, undefined);
    assert.equal(item.address_entities, undefined);
  });
});
