/**
 * Test-only TD3 (passport) MRZ lines and data pages of any issuing state, written from ICAO 9303 itself
 * (check digits weighted 7, 3, 1; letters A=10..Z=35; filler 0), apart from the reader's own MRZ code.
 * The page is drawn with a monospaced system font (no OCR-B here), a few printed English labels and
 * values above the two MRZ lines, on a tinted page set on a darker background, optionally turned.
 */
import sharp from 'sharp';

export interface Td3Person {
  /** Three letters, or D (Germany) padded with filler. */
  state: string;
  number: string;
  surname: string;
  given: string[];
  /** YYMMDD */
  birth: string;
  expiry: string;
  sex: 'M' | 'F' | '<';
  /** Optional data (personal number): letters, digits, filler. */
  optional: string;
}

/** ICAO 9303 check digit. */
export function icaoCheck(s: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  [...s].forEach((c, i) => {
    const v = c === '<' ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 'A'.charCodeAt(0) + 10;
    sum += v * weights[i % 3];
  });
  return String(sum % 10);
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);

/** The two 44-character lines of the person's passport. */
export function td3Lines(p: Td3Person): [string, string] {
  const state = pad(p.state, 3);
  const line1 = pad(`P<${state}${p.surname}<<${p.given.join('<')}`, 44);
  const number = pad(p.number, 9);
  const optional = pad(p.optional, 14);
  const optionalCheck = /^<+$/.test(optional) ? '<' : icaoCheck(optional);
  const head = `${number}${icaoCheck(number)}${state}${p.birth}${icaoCheck(p.birth)}${p.sex}${p.expiry}${icaoCheck(p.expiry)}${optional}${optionalCheck}`;
  const composite = icaoCheck(head.slice(0, 10) + head.slice(13, 20) + head.slice(21, 43));
  return [line1, head + composite];
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A photographed data page: 1250 x 880 page (125 x 88 mm at 10 px/mm) on a `margin`-pixel background,
 * turned clockwise by `turns` quarter turns, as a JPEG.
 */
export async function td3PagePhoto(p: Td3Person, options: { turns?: number; margin?: number } = {}): Promise<Buffer> {
  const [l1, l2] = td3Lines(p);
  const margin = options.margin ?? 120;
  const W = 1250;
  const H = 880;
  const text = (x: number, y: number, size: number, s: string, weight = 'normal') =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${size}" font-weight="${weight}" fill="#222">${escape(s)}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W + 2 * margin}" height="${H + 2 * margin}">
    <rect width="100%" height="100%" fill="#5a4a3a"/>
    <rect x="${margin}" y="${margin}" width="${W}" height="${H}" rx="12" fill="#eef0e6"/>
    <g transform="translate(${margin},${margin})">
      ${text(40, 70, 40, 'PASSPORT', 'bold')}
      <rect x="40" y="130" width="300" height="380" fill="#b8b2aa"/>
      ${text(380, 150, 20, 'Surname')}${text(380, 185, 32, p.surname, 'bold')}
      ${text(380, 235, 20, 'Given names')}${text(380, 270, 32, p.given.join(' '), 'bold')}
      ${text(380, 320, 20, 'Date of birth')}${text(380, 355, 30, `${p.birth.slice(4)}.${p.birth.slice(2, 4)}.19${p.birth.slice(0, 2)}`)}
      ${text(380, 405, 20, 'Date of expiry')}${text(380, 440, 30, `${p.expiry.slice(4)}.${p.expiry.slice(2, 4)}.20${p.expiry.slice(0, 2)}`)}
      ${text(820, 150, 20, 'Passport No.')}${text(820, 185, 30, p.number)}
      <text x="50" y="735" font-family="DejaVu Sans Mono" font-size="42" textLength="1150" lengthAdjust="spacingAndGlyphs" fill="#111">${escape(l1)}</text>
      <text x="50" y="810" font-family="DejaVu Sans Mono" font-size="42" textLength="1150" lengthAdjust="spacingAndGlyphs" fill="#111">${escape(l2)}</text>
    </g>
  </svg>`;
  return sharp(Buffer.from(svg))
    .rotate(((options.turns ?? 0) % 4) * 90)
    .jpeg({ quality: 90 })
    .toBuffer();
}
