/**
 * A generated 12-digit citizen card (no chip: its back has no MRZ, which the npm OCR fallback reads less surely) of one person, both sides, with a real face (a
 * committed face fixture) printed in the portrait box so the face engine
 * finds a portrait, photographed straight and evenly lit.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { photograph, randomPerson, renderCard, seededRng, type Person } from '../../../fixtures/cards/synth.js';

export const FACES = path.join(import.meta.dirname, '..', '..', 'fixtures', 'face');
export const face = (name: string) => fs.readFileSync(path.join(FACES, name));

/** The card front's portrait box on the generator's template. */
const PORTRAIT = { x: 50, y: 250, w: 200, h: 260 };

export interface Card {
  person: Person;
  front: Buffer;
  back: Buffer;
}

export async function citizenCard(seed: number, portrait: Buffer): Promise<Card> {
  const rng = seededRng(seed);
  const person = randomPerson(rng);
  const front = await renderCard('cccd_12_front', person, rng);
  const back = await renderCard('cccd_12_back', person, rng);
  const photo = await sharp(portrait).resize(PORTRAIT.w, PORTRAIT.h, { fit: 'cover' }).png().toBuffer();
  const printed = await sharp(front.png).composite([{ input: photo, left: PORTRAIT.x, top: PORTRAIT.y }]).png().toBuffer();
  const options = { width: 1400, cardFraction: 0.8, rotation: 2, blurSigma: 0, glare: false, jpegQuality: 92, light: 1 };
  return {
    person,
    front: (await photograph(printed, seededRng(seed + 1), options)).jpeg,
    // The generated back is printed nearly grey, which the fraud measure reads as a photocopy (FC01): its colours are strengthened.
    back: (await photograph(await sharp(back.png).modulate({ saturation: 3 }).png().toBuffer(), seededRng(seed + 2), options)).jpeg,
  };
}
