/** A pipeline stage refusing the image with a recognition errorCode (2, 3, 7 or 8). */
export class ReaderFailure extends Error {
  override name = 'ReaderFailure';
  constructor(
    readonly code: 2 | 3 | 7 | 8,
    message: string,
  ) {
    super(message);
  }
}
