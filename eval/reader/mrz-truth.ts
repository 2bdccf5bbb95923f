/**
 * What a real document's truth line says the reader should read from its MRZ, in the answer's form
 * (dd/mm/yyyy): a passport's (TD3) number, name (surname then given names, as the MRZ spells them) and
 * dates of birth and expiry; a chip card back's (TD1) id and dates. Written from ICAO 9303's layouts,
 * apart from the reader's own MRZ code.
 */

/** YYMMDD to dd/mm/yyyy; a birth year after this year is last century's, an expiry this century's. */
function icaoDate(v: string, birth: boolean): string | undefined {
  if (!/^\d{6}$/.test(v)) return undefined;
  const yy = Number(v.slice(0, 2));
  const century = birth && yy > new Date().getUTCFullYear() % 100 ? 1900 : 2000;
  return `${v.slice(4, 6)}/${v.slice(2, 4)}/${century + yy}`;
}

/** The MRZ fields a passport's answer is scored on, from the truth's two printed MRZ lines. */
export function passportTruthFromMrz(mrz: unknown): Record<string, string> {
  if (!Array.isArray(mrz) || mrz.length !== 2 || typeof mrz[0] !== 'string' || typeof mrz[1] !== 'string') return {};
  const [l1, l2] = mrz as [string, string];
  const [surname, given = ''] = l1.slice(5).split('<<');
  const words = (s: string) => s.split('<').filter(Boolean);
  const out: Record<string, string> = {
    passport_number: l2.slice(0, 9).replace(/<+$/, ''),
    name: [...words(surname), ...words(given)].join(' '),
  };
  const dob = icaoDate(l2.slice(13, 19), true);
  const doe = icaoDate(l2.slice(21, 27), false);
  if (dob) out.dob = dob;
  if (doe) out.doe = doe;
  return out;
}

/** The MRZ fields a chip back is scored on (`mrz_id`, `mrz_dob`, `mrz_doe`), from the truth's three TD1 lines. */
export function backTruthFromMrz(mrz: unknown): Record<string, string> {
  if (!Array.isArray(mrz) || mrz.length !== 3 || !mrz.every((l) => typeof l === 'string')) return {};
  const [l1, l2] = mrz as string[];
  const out: Record<string, string> = {};
  // The 12-digit citizen id is the start of line 1's optional data (its last nine digits are the document number).
  const id = /^\d{12}/.exec(l1.slice(15))?.[0];
  if (id) out.mrz_id = id;
  const dob = icaoDate(l2.slice(0, 6), true);
  const doe = icaoDate(l2.slice(8, 14), false);
  if (dob) out.mrz_dob = dob;
  if (doe) out.mrz_doe = doe;
  return out;
}
