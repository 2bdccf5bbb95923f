/**
 * The audio of a request. The spec sends the file as the body; some clients
 * wrap it in a multipart form instead (one file field), so we unwrap that.
 */
export function audioFromBody(body: unknown, contentType: string | undefined): Buffer | undefined {
  if (!Buffer.isBuffer(body)) return undefined;
  const boundary = /^multipart\/form-data\b.*?;\s*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  return boundary ? (firstPart(body, boundary) ?? body) : body;
}

function firstPart(body: Buffer, boundary: string): Buffer | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    parts.push(body.subarray(start, next));
    at = next;
  }
  let fallback: Buffer | undefined;
  for (const part of parts) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd === -1) continue;
    const headers = part.subarray(0, headerEnd).toString('latin1');
    // The part's content runs up to the CRLF that precedes the next delimiter.
    const content = part.subarray(headerEnd + 4, part.length - (part.subarray(-2).toString() === '\r\n' ? 2 : 0));
    if (/filename=/i.test(headers)) return content;
    fallback ??= content;
  }
  return fallback;
}
