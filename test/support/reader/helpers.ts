import fs from 'node:fs';
import path from 'node:path';

export const FIXTURES = path.join(import.meta.dirname, '..', '..', 'fixtures', 'reader');

export interface Truth {
  kind: string;
  fields: Record<string, string>;
  addressEntities?: { province: string; district: string; ward: string; street: string };
}

export const truth = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'truth.json'), 'utf8')) as Record<string, Truth>;

/**
 * The font families `.ci/run` installs (fonts-dejavu-core). Tests draw generated documents with these only:
 * by default the generators pick among every installed family, so a machine with more fonts (fonts-dejavu-extra
 * comes with apt's recommended packages) drew other cards for the same seeds, and a licence test failed there.
 */
export const TEST_FONTS = ['DejaVu Sans', 'DejaVu Serif'];

/** A card photographed close: it fills 70% of the frame, its edges leaving it, on a wood texture (the scene two reader suites use). */
export const FILLS_FRAME_ON_WOOD = { rotation: 0, tightCrop: -0.004, texture: 'wood', glare: false, blurSigma: 0, width: 1300, cardFraction: 0.7 } as const;

export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

export interface Envelope {
  errorCode: number;
  errorMessage: string;
  data: Record<string, unknown>[];
}

/** POSTs a multipart form: files as Buffers, other fields as strings. */
export async function postForm(url: string, apiKey: string | undefined, parts: Record<string, string | Buffer>): Promise<{ status: number; body: Envelope }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  const res = await fetch(url, { method: 'POST', body: form, headers: apiKey ? { api_key: apiKey } : {} });
  return { status: res.status, body: (await res.json()) as Envelope };
}

export async function postUrlencoded(url: string, apiKey: string, fields: Record<string, string>): Promise<{ status: number; body: Envelope }> {
  const res = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { api_key: apiKey, 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, body: (await res.json()) as Envelope };
}
