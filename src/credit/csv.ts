/** A CSV record and the file line it starts on (1-based, header included). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** A field longer than this means a broken quote swallowed the file. */
const MAX_FIELD = 10_000;

/**
 * Streams RFC 4180 records (quoted fields, doubled quotes, CRLF or LF, a
 * leading BOM) from text chunks, without holding the file in memory.
 */
export async function* readCsv(chunks: AsyncIterable<string | Buffer>): AsyncGenerator<CsvRecord> {
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let recordLine = 1;
  let first = true;
  let pendingCr = false;
  let quotePending = false;
  let any = false;

  const endField = () => {
    fields.push(field);
    field = '';
    afterQuote = false;
  };

  // Decodes across chunk boundaries, so a character split between two chunks survives.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') continue;
      }
      if (quotePending) {
        // A quote ended the previous chunk: doubled ("") it is a literal quote, else it closed the field.
        quotePending = false;
        if (c === '"') {
          field += '"';
          continue;
        }
        quoted = false;
        afterQuote = true;
      }
      if (quoted) {
        if (c === '"') {
          if (i + 1 === text.length) quotePending = true;
          else if (text[i + 1] === '"') {
            field += '"';
            i++;
          } else {
            quoted = false;
            afterQuote = true;
          }
        } else {
          if (c === '\n') line++;
          field += c;
          if (field.length > MAX_FIELD) throw new CsvError(recordLine, `a field is longer than ${MAX_FIELD} characters (unclosed quote?)`);
        }
        continue;
      }
      if (c === '"' && field === '' && !afterQuote) {
        quoted = true;
        any = true;
        continue;
      }
      if (c === ',') {
        endField();
        any = true;
        continue;
      }
      if (c === '\n' || c === '\r') {
        if (c === '\r') pendingCr = true;
        if (any || field !== '' || fields.length > 0) {
          endField();
          yield { line: recordLine, fields };
        }
        fields = [];
        any = false;
        line++;
        recordLine = line;
        continue;
      }
      field += c;
      any = true;
      if (field.length > MAX_FIELD) throw new CsvError(recordLine, `a field is longer than ${MAX_FIELD} characters`);
    }
  }
  if (quotePending) {
    quoted = false;
    afterQuote = true;
  }
  if (quoted) throw new CsvError(recordLine, 'unclosed quote at the end of the file');
  if (any || field !== '' || fields.length > 0) {
    endField();
    yield { line: recordLine, fields };
  }
}

/** Maps a header row to column positions; `required` columns must be present, the others may be. */
export function columnsOf<T extends string>(header: string[], required: readonly T[], optional: readonly T[] = []): Record<T, number> {
  const names = header.map((h) => h.trim().toLowerCase());
  const out = {} as Record<T, number>;
  const missing: string[] = [];
  for (const name of [...required, ...optional]) {
    const at = names.indexOf(name);
    if (at < 0 && required.includes(name)) missing.push(name);
    out[name] = at;
  }
  if (missing.length) throw new CsvError(1, `the header lacks column(s) ${missing.join(', ')} (it has: ${names.join(', ')})`);
  return out;
}
