/**
 * Timestamps in imported files: Unix seconds, or ISO-8601 with a zone
 * (`2024-05-01T10:00:00+07:00`, `2024-05-01 03:00:00Z`). A local time with
 * no zone is refused: point-in-time correctness depends on knowing the instant.
 */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const UNIX_SECONDS = /^\d{1,12}(\.\d{1,9})?$/;
/** Earliest instant accepted: older data is surely a mistake (a date typed in the wrong order). */
const EARLIEST = Date.parse('1990-01-01T00:00:00Z');

export type TimestampResult = { ok: true; ms: number } | { ok: false; message: string };

export function parseTimestamp(raw: string, now = Date.now()): TimestampResult {
  const text = raw.trim();
  let ms: number;
  if (UNIX_SECONDS.test(text)) ms = Math.floor(Number(text) * 1000);
  else if (ISO_WITH_ZONE.test(text)) ms = Date.parse(text.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?$/.test(text)) {
    return { ok: false, message: `"${text}" has no time zone; add Z or +07:00` };
  } else return { ok: false, message: `"${text.slice(0, 40)}" is not Unix seconds or an ISO-8601 time with a zone` };
  if (!Number.isFinite(ms)) return { ok: false, message: `"${text}" is not a real date` };
  if (ms < EARLIEST) return { ok: false, message: `"${text}" is before 1990` };
  if (ms > now + 86_400_000) return { ok: false, message: `"${text}" is in the future` };
  return { ok: true, ms };
}
