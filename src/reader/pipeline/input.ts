/**
 * Which image the request carries: exactly one of `image` (file),
 * `image_url` (fetched through the SSRF guard) and `image_base64`.
 */
import { FetchGuardError, guardedFetch } from '../../platform/fetch-guard.js';
import { ServiceError } from '../../platform/http/errors.js';
import { ReaderErrors } from '../errors.js';

export interface ImageRequest {
  /** The uploaded file, when an `image` file part came. */
  file?: Buffer;
  /** `image` was sent, but as a text field rather than a file. */
  imageText?: string;
  imageUrl?: string;
  imageBase64?: string;
  face?: string;
  /** `quality_check` (the guide's quality check before reading): "1" or "0". */
  qualityCheck?: string;
}

export interface InputLimits {
  maxImageBytes: number;
  allowPrivateUrls: boolean;
  fetchTimeoutMs: number;
}

const tooLarge = (limit: number) => new ServiceError(ReaderErrors.bodyTooLarge, `The image is larger than ${Math.round(limit / 1024 / 1024)} MB`);

export function decodeBase64(value: string, maxBytes: number): Buffer {
  let text = value.trim();
  const dataUrl = /^data:[^,]*;base64,/i.exec(text);
  if (dataUrl) text = text.slice(dataUrl[0].length);
  text = text.replace(/\s+/g, '');
  if (!text) throw new ServiceError(ReaderErrors.emptyBase64);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || text.length % 4 === 1) throw new ServiceError(ReaderErrors.invalidBase64);
  if (Math.floor((text.length * 3) / 4) > maxBytes + 3) throw tooLarge(maxBytes);
  const buf = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (buf.length === 0) throw new ServiceError(ReaderErrors.invalidBase64);
  if (buf.length > maxBytes) throw tooLarge(maxBytes);
  return buf;
}

/** A 0/1 switch (`face`, `quality_check`): absent or empty is off; anything but 0/1/true/false is code 1. */
export function wantsFlag(value: string | undefined, name: string): boolean {
  if (value === undefined || value.trim() === '') return false;
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new ServiceError(ReaderErrors.invalidParameters, `${name} must be 0 or 1`);
}

export function wantsFace(value: string | undefined): boolean {
  return wantsFlag(value, 'face');
}

/** Resolves the request to image bytes, or throws the errorCode the spec gives. */
export async function imageBytes(req: ImageRequest, limits: InputLimits): Promise<Buffer> {
  const given = [req.file !== undefined || req.imageText !== undefined, req.imageUrl !== undefined, req.imageBase64 !== undefined].filter(Boolean).length;
  if (given === 0) throw new ServiceError(ReaderErrors.invalidParameters, 'No image in the request: send image, image_url or image_base64');
  if (given > 1) throw new ServiceError(ReaderErrors.invalidParameters, 'Send exactly one of image, image_url and image_base64');
  if (req.imageText !== undefined) throw new ServiceError(ReaderErrors.invalidParameters, 'image must be a file upload');
  if (req.file !== undefined) {
    if (req.file.length === 0) throw new ServiceError(ReaderErrors.invalidParameters, 'The image file is empty');
    if (req.file.length > limits.maxImageBytes) throw tooLarge(limits.maxImageBytes);
    return req.file;
  }
  if (req.imageBase64 !== undefined) return decodeBase64(req.imageBase64, limits.maxImageBytes);
  const url = (req.imageUrl ?? '').trim();
  if (!url) throw new ServiceError(ReaderErrors.emptyImageUrl);
  try {
    const res = await guardedFetch(url, { allowPrivate: limits.allowPrivateUrls, timeoutMs: limits.fetchTimeoutMs, maxBytes: limits.maxImageBytes });
    if (res.status < 200 || res.status >= 300) throw new ServiceError(ReaderErrors.urlUnreachable, `The URL given in image_url answered HTTP ${res.status}`);
    if (res.body.length === 0) throw new ServiceError(ReaderErrors.urlUnreachable, 'The URL given in image_url answered with an empty body');
    return res.body;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const reason = err instanceof FetchGuardError ? err.reason : 'network';
    const why: Record<string, string> = {
      invalid_url: 'it is not a valid http or https URL',
      blocked_address: 'it points to a private, loopback or link-local address',
      dns: 'its host name does not resolve',
      timeout: 'it did not answer in time',
      too_large: `its content is larger than ${Math.round(limits.maxImageBytes / 1024 / 1024)} MB`,
      too_many_redirects: 'it redirects too many times',
      network: 'the connection failed',
    };
    throw new ServiceError(ReaderErrors.urlUnreachable, `The URL given in image_url cannot be opened: ${why[reason] ?? why.network}`);
  }
}
