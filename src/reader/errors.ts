import { defineCatalogue, type CatalogueEntry, type ServiceErrorShape } from '../platform/http/errors.js';

/**
 * The recognition errorCode table (spec: Errors / Recognition errorCode values).
 * Domain outcomes answer HTTP 200 with the code in the body; credentials 401,
 * too large 413, busy 429, our fault 500, all in the same body shape.
 */
export const ReaderErrors = defineCatalogue({
  invalidParameters: { code: 1, message: 'Invalid parameters or values', status: 200 },
  cropFailed: { code: 2, message: 'Cropping failed: corners of the document are missing', status: 200 },
  notFound: { code: 3, message: 'Document not found in the image, or poor image quality', status: 200 },
  emptyImageUrl: { code: 5, message: 'The image_url parameter is empty', status: 200 },
  urlUnreachable: { code: 6, message: 'The URL given in image_url cannot be opened', status: 200 },
  notAnImage: { code: 7, message: 'The uploaded file is not an image', status: 200 },
  corruptImage: { code: 8, message: 'The image file is corrupted or its format is unsupported', status: 200 },
  emptyBase64: { code: 9, message: 'The image_base64 parameter is empty', status: 200 },
  invalidBase64: { code: 10, message: 'The image_base64 string is invalid', status: 200 },

  unauthorized: { code: 1, message: 'Invalid or missing api_key', status: 401 },
  bodyTooLarge: { code: 1, message: 'The image is larger than 5 MB', status: 413 },
  busy: { code: 1, message: 'Server busy; try again shortly', status: 429 },
  invalidRequest: { code: 1, message: 'Invalid parameters or values', status: 200 },
  routeNotFound: { code: 1, message: 'Not found', status: 404 },
  methodNotAllowed: { code: 1, message: 'Method not allowed', status: 405 },
  internal: { code: 1, message: 'Internal error; it has been logged', status: 500 },
});

/** Pipeline refusals (worker results) by errorCode. */
export const REFUSALS: Record<2 | 3 | 7 | 8, CatalogueEntry> = {
  2: ReaderErrors.cropFailed,
  3: ReaderErrors.notFound,
  7: ReaderErrors.notAnImage,
  8: ReaderErrors.corruptImage,
};

export interface RecognitionEnvelope {
  errorCode: number;
  errorMessage: string;
  data: unknown[];
}

export const readerErrorShape: ServiceErrorShape = {
  service: 'reader',
  platform: {
    unauthorized: ReaderErrors.unauthorized,
    bodyTooLarge: ReaderErrors.bodyTooLarge,
    busy: ReaderErrors.busy,
    invalidRequest: ReaderErrors.invalidRequest,
    routeNotFound: ReaderErrors.routeNotFound,
    methodNotAllowed: ReaderErrors.methodNotAllowed,
    internal: ReaderErrors.internal,
  },
  render: (entry, message): RecognitionEnvelope => ({ errorCode: Number(entry.code), errorMessage: message, data: [] }),
};

/**
 * The fraud check's post-check codes and messages, as the original guide
 * words them (E14 is reserved there). A result, not an error: answered with
 * errorCode 0 in the `post_check_result` item (post-check.ts).
 */
export const POST_CHECK_CODES = {
  E00: 'Passed',
  E01: 'There is a NULL field',
  E02: 'ID format is not correct',
  E03: 'DoB format is not correct',
  E04: 'DoB is later than today',
  E05: 'Current age cannot smaller than 14',
  E06: 'Nationality is not correct',
  E07: 'Year in DoB is not match with ID number',
  E08: 'Gender code is not match',
  E09: 'DoE format is not correct',
  E10: 'ID card has been expired',
  E11: 'DoE cannot be "KHÔNG THỜI HẠN"',
  E12: 'DoI format is not correct',
  E13: 'DoI is later than today',
  E15: 'Please send images of front and back side of same type ID (old or new ID)',
  E16: 'There is a NULL field in front side',
  E17: 'Age at issue date cannot smaller than 14',
  E18: 'DoE should be DoI + 15 years',
  E19: 'DoE should be birthday at 25 years old',
  E20: 'DoE should be birthday at 40 years old',
  E21: 'DoE should be birthday at 60 years old',
  E22: 'DoE should be "KHÔNG THỜI HẠN"',
} as const;
