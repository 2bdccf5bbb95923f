/** Row types of the eKYC tables (timestamps ISO-8601 text, ids UUIDv7 text). */

export type SessionStatus = 'open' | 'complete' | 'failed';

/** One run of the full flow, owned by the application that started it. */
export interface EkycSessionRow {
  id: string;
  app_code: string;
  device_type: string;
  client_uuid: string | null;
  status: SessionStatus;
  /** Set by the first accepted side; every later side must name the same. */
  document_type: string | null;
  /** The accepted sides, JSON: the guide's data items and the read side the post-check needs. */
  front: string | null;
  back: string | null;
  /** The document's number as read (the fraud memory's key). */
  id_number: string | null;
  /** The document portrait's embedding, base64 of float32 (the fraud memory's other key). */
  document_face: string | null;
  /** Selfie attempts made. */
  attempts: number;
  /** The last selfie step's answer, JSON. */
  result: string | null;
  created_time: string;
  expires_time: string;
  completed_time: string | null;
}

/** An image a session received, kept in the blob store under `blob_key`. */
export interface EkycImageRow {
  id: string;
  app_code: string;
  session_id: string;
  /** front | back | selfie (a refused side's image too: its ekyc_attempts row names it) */
  kind: string;
  blob_key: string;
  created_time: string;
}

/**
 * A side the flow refused after running its checks (quality, reading, portrait, fraud, fraud memory,
 * post-check): what the review desk shows of why a session failed.
 */
export interface EkycAttemptRow {
  id: string;
  app_code: string;
  session_id: string;
  /** front | back */
  side: string;
  /** The refusal's code (QC01, E110, FC05, DB01, E16, 3...). */
  code: string;
  /**
   * The checks as they ran, JSON: each stage reached with its `result` (passed, failed) and what it measured
   * (the quality scores, the fraud measures, the post-check's code). A stage not reached is absent.
   */
  checks: string;
  /** The refused image (ekyc_images.id); null once the session's kept refused images reached their cap. */
  image_id: string | null;
  created_time: string;
}

/** An ID number and/or face of a session with a fraud or spoof result, remembered until `expires_time`. */
export interface EkycFraudMemoryRow {
  id: string;
  app_code: string;
  session_id: string;
  id_number: string | null;
  /** base64 of a float32 embedding. */
  face: string | null;
  /** The code that put it here (FC01..., 301, 302). */
  reason: string;
  created_time: string;
  expires_time: string;
}

/** An application's flow settings overrides (settings.ts), JSON. */
export interface EkycAppSettingsRow {
  app_code: string;
  settings: string;
  updated_time: string;
}

export type EkycTables = {
  ekyc_app_settings: EkycAppSettingsRow;
  ekyc_sessions: EkycSessionRow;
  ekyc_images: EkycImageRow;
  ekyc_fraud_memory: EkycFraudMemoryRow;
  ekyc_attempts: EkycAttemptRow;
};
