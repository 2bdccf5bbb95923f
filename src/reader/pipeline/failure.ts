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

/** The reading, or the refusal a ReaderFailure stands for (any other error goes on). */
export async function refusalOf<T>(read: () => Promise<T>): Promise<T | { ok: false; code: ReaderFailure['code']; message: string }> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ReaderFailure) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
