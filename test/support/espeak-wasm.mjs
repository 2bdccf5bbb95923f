// Writes eSpeak NG speech as a 16-bit mono WAV file with the WASM build
// (@echogarden/espeak-ng-emscripten), for test audio on a machine without the
// espeak-ng program. Run as a child process so test helpers stay synchronous:
//   node espeak-wasm.mjs VOICE OUT.wav TEXT
import fs from 'node:fs';

const [voice, out, text] = process.argv.slice(2);
const { default: initialise } = await import('@echogarden/espeak-ng-emscripten');
const module = await initialise();
const engine = new module.eSpeakNGWorker();
if (engine.set_voice(voice) !== 0) throw new Error(`eSpeak NG (WASM) has no voice ${voice}`);
const chunks = [];
engine.synthesize(text, (samples) => {
  if (samples && samples.length > 0) chunks.push(Buffer.from(Int16Array.from(samples).buffer));
  return false;
});
const pcm = Buffer.concat(chunks);
const rate = engine.get_samplerate();
const header = Buffer.alloc(44);
header.write('RIFF', 0);
header.writeUInt32LE(36 + pcm.length, 4);
header.write('WAVEfmt ', 8);
header.writeUInt32LE(16, 16);
header.writeUInt16LE(1, 20);
header.writeUInt16LE(1, 22);
header.writeUInt32LE(rate, 24);
header.writeUInt32LE(rate * 2, 28);
header.writeUInt16LE(2, 32);
header.writeUInt16LE(16, 34);
header.write('data', 36);
header.writeUInt32LE(pcm.length, 40);
fs.writeFileSync(out, Buffer.concat([header, pcm]));
