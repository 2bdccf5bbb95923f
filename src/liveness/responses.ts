import type { CatalogueEntry } from '../platform/http/errors.js';
import { LIVENESS_MESSAGE, LivenessErrors } from './errors.js';

/** What a liveness check found, before it is rendered as the v2 or the v3 body. */
export interface LivenessResult {
  entry: CatalogueEntry;
  /** The reason in words (v2 `data`, v3 `liveness.message` on an error). */
  detail: string;
  /** Present when every check passed and the cues were fused. */
  decision?: { prob: number; isLive: boolean; needToReview: boolean };
  /** `cmnd` compared: similarity 0-100; or no face in `cmnd` (407). Absent without `cmnd`. */
  faceMatch?: { isMatch: boolean; similarity: number } | { error: CatalogueEntry; detail: string };
  /** Input quality that may harm accuracy (v3 `warning`). */
  warnings: string[];
}

const NA = 'N/A';
const fixed = (v: number, digits: number) => v.toFixed(digits);

/**
 * v2: `{code, message, is_live, prob, need_to_review, deepfake_prob,
 * face_match | face_match_error}`. `prob` is the live probability. 408-410
 * add a `data` string; 411-413 carry only code, message, is_live and
 * need_to_review (spec). No deepfake detector is available: `is_deepfake`
 * is left out (the spec allows its absence) and `deepfake_prob` is "N/A".
 */
export function renderV2(r: LivenessResult): Record<string, unknown> {
  const code = Number(r.entry.code);
  const base = { code: String(code), message: LIVENESS_MESSAGE };
  if (code !== 200 || !r.decision) {
    if (code >= 411 && code <= 413) return { ...base, is_live: false, need_to_review: false };
    return { ...base, is_live: false, need_to_review: false, data: r.detail };
  }
  const body: Record<string, unknown> = {
    ...base,
    is_live: r.decision.isLive,
    prob: fixed(r.decision.prob, 4),
    need_to_review: r.decision.needToReview,
    deepfake_prob: NA,
  };
  if (r.faceMatch && 'error' in r.faceMatch) body.face_match_error = { code: String(r.faceMatch.error.code), data: r.faceMatch.detail };
  else if (r.faceMatch) body.face_match = { isMatch: r.faceMatch.isMatch, similarity: r.faceMatch.similarity };
  return body;
}

/**
 * v3: every value a string; `liveness.spoof_prob` = 1 - live probability;
 * values that do not apply are "N/A" (DECISIONS.md). The top-level code is
 * the liveness code when it failed, else the face-match code when that
 * failed, else 200.
 */
export function renderV3(r: LivenessResult): Record<string, unknown> {
  const code = String(r.entry.code);
  const ok = code === '200' && r.decision;
  const warning = r.warnings.length ? r.warnings.join('; ') : NA;
  const liveness = {
    code,
    message: ok ? LivenessErrors.ok.message : r.detail,
    is_live: ok ? String(r.decision!.isLive) : NA,
    spoof_prob: ok ? fixed(1 - r.decision!.prob, 4) : NA,
    need_to_review: ok ? String(r.decision!.needToReview) : NA,
    is_deepfake: NA,
    deepfake_prob: NA,
    warning,
  };
  let faceMatch = { code: NA, message: NA, isMatch: NA, similarity: NA, warning: NA };
  let top = code;
  const fm = ok ? r.faceMatch : undefined;
  if (fm && 'error' in fm) {
    faceMatch = { code: String(fm.error.code), message: fm.detail, isMatch: NA, similarity: NA, warning: NA };
    top = faceMatch.code;
  } else if (fm) {
    faceMatch = { code: '200', message: LivenessErrors.ok.message, isMatch: String(fm.isMatch), similarity: fixed(fm.similarity, 2), warning };
  }
  return { code: top, message: LIVENESS_MESSAGE, liveness, face_match: faceMatch };
}
