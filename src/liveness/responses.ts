import type { CatalogueEntry } from '../platform/http/errors.js';
import { LIVENESS_MESSAGE, LIVENESS_V3_OK, LIVENESS_V3_TEXT } from './errors.js';

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
 * v3, in the original's integration guide's shape: every value a string;
 * `liveness.spoof_prob` = 1 - live probability; "N/A" where a value does not
 * apply (docs/api-contract.md#liveness-v3-follows-the-integration-guide). The top-level code and message carry the outcome: the
 * liveness error when it failed, else 301 when the face is not live, else the
 * face-match outcome (407 no face in `cmnd`, 303 not matching), else 200 with
 * "request successful". Sub-objects that succeeded say so ("liveness check
 * successful", "face matching successful").
 */
export function renderV3(r: LivenessResult): Record<string, unknown> {
  const code = String(r.entry.code);
  const ok = code === '200' && r.decision;
  // The guide's success samples carry an empty warning; only a refused upload (409) has none to give.
  const warning = r.warnings.length ? r.warnings.join('; ') : code === '409' ? NA : '';
  const liveness = {
    code,
    // A refused upload keeps its reason (which limit); other codes the guide's text.
    message: ok ? LIVENESS_V3_OK.liveness : code === '409' ? r.detail : (LIVENESS_V3_TEXT[code] ?? r.detail),
    is_live: ok ? String(r.decision!.isLive) : code === '409' ? NA : 'false',
    spoof_prob: ok ? fixed(1 - r.decision!.prob, 4) : NA,
    need_to_review: ok ? String(r.decision!.needToReview) : code === '409' ? NA : 'false',
    is_deepfake: NA,
    deepfake_prob: NA,
    warning,
  };
  const text = (c: string) => LIVENESS_V3_TEXT[c] ?? r.detail;
  let faceMatch = { code: NA, message: NA, isMatch: NA, similarity: NA, warning: NA };
  if (code === '409') faceMatch = { code, message: text(code), isMatch: NA, similarity: NA, warning: NA };
  let top = ok ? '200' : code;
  const fm = ok ? r.faceMatch : undefined;
  if (fm && 'error' in fm) {
    faceMatch = { code: String(fm.error.code), message: text(String(fm.error.code)), isMatch: NA, similarity: NA, warning: NA };
  } else if (fm) {
    const c = fm.isMatch ? '200' : '303';
    faceMatch = { code: c, message: fm.isMatch ? LIVENESS_V3_OK.faceMatch : text(c), isMatch: String(fm.isMatch), similarity: fixed(fm.similarity, 2), warning: NA };
  }
  if (ok && !r.decision!.isLive) top = '301';
  else if (ok && faceMatch.code !== NA && faceMatch.code !== '200') top = faceMatch.code;
  return { code: top, message: text(top), liveness, face_match: faceMatch };
}
