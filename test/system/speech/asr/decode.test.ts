import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AudioDecodeError, FfmpegDecoder, SAMPLE_RATE } from '../../../../src/speech/asr/engine/decode.js';
import { needsPrograms } from '../../../support/programs.js';
import { FORMATS, convert, speech } from '../../../support/speech/asr/audio.js';

/** Both decoders: ffmpeg from the PATH (Debian) and the npm-shipped binary (@ffmpeg-installer/linux-x64). */
const clip = speech('Một hai ba bốn năm');

for (const preference of ['native', 'npm'] as const) {
  // The npm binary is always there; the Debian one only where it is installed.
  describe(`${preference} ffmpeg`, { skip: preference === 'native' && needsPrograms('ffmpeg') }, () => {
    test(`decodes every upload format to 16 kHz mono`, async () => {
      const decoder = await FfmpegDecoder.locate(preference);
      assert.equal(decoder.source, preference);
      const reference = await decoder.decode(clip, { maxSeconds: 60 });
      assert.ok(reference.seconds > 1);
      assert.ok(reference.samples.buffer instanceof SharedArrayBuffer);
      assert.equal(reference.samples.length, Math.round(reference.seconds * SAMPLE_RATE));
      for (const format of Object.keys(FORMATS)) {
        const pcm = await decoder.decode(convert(clip, format), { maxSeconds: 60 });
        // Lossy codecs pad a few frames; the length stays that of the speech.
        assert.ok(Math.abs(pcm.seconds - reference.seconds) < 0.15, `${format}: ${pcm.seconds} vs ${reference.seconds}`);
        let energy = 0;
        for (const s of pcm.samples) energy += s * s;
        assert.ok(energy > 1, `${format} carries the sound`);
      }
    });

    test('refuses empty, non-audio, playlist and too-long uploads with a reason', async () => {
      const decoder = await FfmpegDecoder.locate(preference);
      const reason = async (body: Buffer, maxSeconds = 60) => {
        try {
          await decoder.decode(body, { maxSeconds });
          return 'decoded';
        } catch (err) {
          assert.ok(err instanceof AudioDecodeError, String(err));
          return err.reason;
        }
      };
      assert.equal(await reason(Buffer.alloc(0)), 'empty');
      assert.equal(await reason(Buffer.from('not audio at all')), 'unreadable');
      assert.equal(await reason(Buffer.from('#EXTM3U\n#EXTINF:1,\n/etc/passwd\n')), 'unreadable');
      assert.equal(await reason(Buffer.from("ffconcat version 1.0\nfile '/etc/passwd'\n")), 'unreadable');
      assert.equal(await reason(clip, 1), 'tooLong');
    });
  });
}
