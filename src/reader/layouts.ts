/**
 * The flattened card's frame (CARD_WIDTH x CARD_HEIGHT, the ID-1 aspect 85.6 x 54 mm) and, for each kind
 * of Vietnamese ID card, what the answer needs of it: the side, the answer's `type`, the fields it answers,
 * the portrait's box (the face crop) and the MRZ band. Fields are found by their printed labels
 * (documents/id-card/model.ts, pipeline/anchors.ts), not by coordinates. The test-card generator has its own templates
 * (fixtures/cards/templates.ts), the reader none.
 */

export const CARD_WIDTH = 1000;
export const CARD_HEIGHT = 630;

export type CardKind =
  | 'cmnd_09_front'
  | 'cmnd_09_back'
  | 'cmnd_12_front'
  | 'cmnd_12_back'
  | 'cccd_12_front'
  | 'cccd_12_back'
  | 'cccd_chip_front'
  | 'cccd_chip_back'
  /** The 2024 citizen card ("CĂN CƯỚC", Law on Identification 2023). */
  | 'cccd_2024_front'
  | 'cccd_2024_back';

/** The `type` value of the answer (docs/api-contract.md#type-values). */
export type CardType = 'old' | 'old_back' | 'new' | 'new_back' | 'chip_front' | 'chip_back';

export type IdCardField =
  | 'id'
  | 'name'
  | 'dob'
  | 'sex'
  | 'nationality'
  | 'home'
  | 'address'
  | 'doe'
  | 'religion'
  | 'ethnicity'
  | 'features'
  | 'issue_date'
  | 'issue_loc'
  /** Place of birth registration (2024 card back). */
  | 'pob';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface CardLayout {
  kind: CardKind;
  side: 'front' | 'back';
  type: CardType;
  /** Fields of the answer for this side, in order (others of the category answer N/A). */
  fields: IdCardField[];
  /** Where the portrait usually is (the face crop). */
  photo?: Box;
  /** Where the MRZ usually is (the band read when the MRZ's own lines are not found). */
  mrz?: Box;
}

const FRONT_FIELDS_NEW: IdCardField[] = ['id', 'name', 'dob', 'sex', 'nationality', 'home', 'address', 'doe'];
const BACK_FIELDS_NEW: IdCardField[] = ['features', 'issue_date'];
const MRZ_BAND: Box = { x: 30, y: 420, w: 940, h: 190 };

export const LAYOUTS: Record<CardKind, CardLayout> = {
  cmnd_09_front: { kind: 'cmnd_09_front', side: 'front', type: 'old', fields: ['id', 'name', 'dob', 'home', 'address'], photo: { x: 70, y: 300, w: 170, h: 230 } },
  cmnd_09_back: { kind: 'cmnd_09_back', side: 'back', type: 'old_back', fields: ['religion', 'ethnicity', 'features', 'issue_date', 'issue_loc'] },
  cmnd_12_front: { kind: 'cmnd_12_front', side: 'front', type: 'new', fields: FRONT_FIELDS_NEW, photo: { x: 50, y: 250, w: 200, h: 260 } },
  cmnd_12_back: { kind: 'cmnd_12_back', side: 'back', type: 'new_back', fields: BACK_FIELDS_NEW },
  cccd_12_front: { kind: 'cccd_12_front', side: 'front', type: 'new', fields: FRONT_FIELDS_NEW, photo: { x: 50, y: 250, w: 200, h: 260 } },
  cccd_12_back: { kind: 'cccd_12_back', side: 'back', type: 'new_back', fields: BACK_FIELDS_NEW },
  cccd_chip_front: { kind: 'cccd_chip_front', side: 'front', type: 'chip_front', fields: FRONT_FIELDS_NEW, photo: { x: 40, y: 240, w: 200, h: 260 } },
  cccd_chip_back: { kind: 'cccd_chip_back', side: 'back', type: 'chip_back', fields: BACK_FIELDS_NEW, mrz: MRZ_BAND },
  cccd_2024_front: { kind: 'cccd_2024_front', side: 'front', type: 'chip_front', fields: ['id', 'name', 'dob', 'sex', 'nationality'], photo: { x: 40, y: 250, w: 200, h: 260 } },
  cccd_2024_back: { kind: 'cccd_2024_back', side: 'back', type: 'chip_back', fields: ['address', 'pob', 'issue_date', 'doe'], mrz: MRZ_BAND },
};
