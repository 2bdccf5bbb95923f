/**
 * What a document model is to the layout-free reader (pipeline/anchors.ts): the document's own
 * field names `F`, the printed labels of each field, how its value looks and how many lines it
 * may take, and the printed words that are neither label nor value. Each document kind keeps
 * its model, validators and answer shape in its own folder (id-card/, licence/, passport/).
 *
 * Labels are matched accent-insensitively and fuzzily, so one wording covers its OCR-damaged
 * forms; list each printed wording once.
 */
export type ValueStyle = 'text' | 'name' | 'digits' | 'date' | 'address';

export interface FieldSpec<F extends string> {
  field: F;
  /** Printed wordings of the label, longest (bilingual) first is not required: the longest match wins. */
  labels: string[];
  style: ValueStyle;
  /** Most printed lines the value takes (the label's own line included when the value starts there). */
  maxLines: number;
}

/** A field's spec as the licence and passport tables write it: style and wordings, one printed line unless said. */
export function fieldSpec<F extends string>(field: F, style: ValueStyle, labels: string[], maxLines = 1): FieldSpec<F> {
  return { field, labels, style, maxLines };
}

export interface DocumentModel<F extends string> {
  fields: FieldSpec<F>[];
  /** Printed words that are neither label nor value (titles, signatures, boxes): a value stops at them. */
  stops: string[];
}
