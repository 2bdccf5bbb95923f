/** The text-to-speech tables, as Kysely sees them. */
export interface TtsRequestRow {
  /** The request_id clients see (UUIDv7). */
  id: string;
  app_code: string;
  /** The file name part of the public link: random, sized so the link is exactly 90 characters. */
  link_token: string;
  /** The link handed out, as it was then (the public base URL may change later). */
  async_url: string;
  voice: string;
  speed: number;
  format: string;
  /** Characters of the text (the text itself travels in the job payload). */
  text_length: number;
  callback_url: string | null;
  job_id: string | null;
  blob_key: string;
  /** Bytes of the finished file. */
  audio_bytes: number | null;
  /** Milliseconds of audio. */
  audio_ms: number | null;
  error: string | null;
  created_time: string;
  ready_time: string | null;
  failed_time: string | null;
}

export type TtsTables = {
  tts_requests: TtsRequestRow;
};
