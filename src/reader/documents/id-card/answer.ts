/**
 * The ID card's answer shape (spec and docs/api-contract.md#value-formats): every field of the card's
 * side with its `_prob`, `N/A` where it was not read, then, for /vision/idr/vnm,
 * the address entities, `type`, `type_new` and the overall score.
 */
import { LAYOUTS, type IdCardField } from '../../layouts.js';
import { formatProb } from '../../pipeline/confidence.js';
import type { ReadCard } from '../../pipeline/run.js';

export const NA = 'N/A';
const FRONT_FIELDS: IdCardField[] = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];
const BACK_FIELDS: IdCardField[] = ['religion', 'ethnicity', 'features', 'issue_date', 'issue_loc'];

/** Every field of the card's side with its `_prob`, `N/A` where it was not read: both answers start here. */
export function cardFields(card: ReadCard): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const layout = LAYOUTS[card.kind];
  // The side's usual fields, and any the model prints besides (the 2024 back: address, pob, doe).
  const names = [...new Set([...(layout.side === 'front' ? FRONT_FIELDS : BACK_FIELDS), ...layout.fields])];
  for (const f of names) {
    const v = card.fields[f];
    item[f] = v?.value ?? NA;
    item[`${f}_prob`] = v ? formatProb(v.prob) : NA;
  }
  return item;
}

/** The /vision/idr/vnm data item. */
export function idrItem(card: ReadCard): Record<string, unknown> {
  const layout = LAYOUTS[card.kind];
  const item = cardFields(card);
  if (layout.side === 'front' || layout.fields.includes('address'))
    item.address_entities = card.addressEntities ?? { province: '', district: '', ward: '', street: '' };
  item.type = layout.type;
  // The 2024 card's back is told from the chip card's by `type_new` too (its type is the chip card's).
  if (layout.side === 'front' || card.kind === 'cccd_2024_back') item.type_new = card.kind;
  item.overall_score = formatProb(card.overall);
  return item;
}
