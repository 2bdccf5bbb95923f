/**
 * HTTP adapter of the ID card reader: POST /vision/idr/vnm (and with a
 * trailing slash) and the legacy POST /cmt, both answering the recognition
 * envelope {errorCode, errorMessage, data}. Face crops of /cmt are served at
 * GET /cmt/faces/<uuid>.jpg.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireApiKey } from '../platform/auth/hooks.js';
import type { Credentials } from '../platform/auth/credentials.js';
import { sendBlob } from '../platform/blobs/http.js';
import type { BlobStore } from '../platform/blobs/store.js';
import { ServiceError } from '../platform/http/errors.js';
import { bufferedParts } from '../platform/http/multipart.js';
import { useServiceErrors } from '../platform/http/service.js';
import type { Config } from '../platform/config.js';
import type { ReaderConfig } from './config.js';
import { ReaderErrors, readerErrorShape, type RecognitionEnvelope } from './errors.js';
import { imageBytes, wantsFace, wantsFlag, type ImageRequest } from './pipeline/input.js';
import { qualityPassed } from './quality-check.js';
import { faceKey, type ReaderService } from './service.js';
import { passportItem } from './documents/passport/passport.js';
import { licenceItem } from './documents/licence/licence.js';

export interface ReaderRoutesOptions {
  service: ReaderService;
  credentials: Credentials;
  blobs: BlobStore;
  config: ReaderConfig;
  platform: Config;
}

function scalar(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return scalar(v[0]);
  if (typeof v === 'object') return undefined;
  return String(v);
}

const KEYS = ['image', 'image_url', 'image_base64', 'face', 'quality_check'] as const;

/** Reads multipart (file and fields) or a urlencoded / JSON body into the image request. */
async function readImageRequest(request: FastifyRequest, fieldLimit: number, opts: { sides?: 1 | 2 } = {}): Promise<ImageRequest & { secondFile?: Buffer }> {
  const out: ImageRequest & { secondFile?: Buffer } = {};
  const setField = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    if (name === 'image') out.imageText = value;
    else if (name === 'image_url') out.imageUrl = value;
    else if (name === 'image_base64') out.imageBase64 = value;
    else if (name === 'face') out.face = value;
    else if (name === 'quality_check') out.qualityCheck = value;
  };
  if (request.isMultipart()) {
    for await (const part of bufferedParts(request)) {
      if (part.type === 'file') {
        const data = part.data;
        if (part.fieldname === 'image') {
          // The fraud check takes a card's two sides as two `image` parts; every other route one image.
          if (out.file !== undefined && opts.sides === 2 && out.secondFile === undefined) out.secondFile = data;
          else if (out.file !== undefined)
            throw new ServiceError(ReaderErrors.invalidParameters, opts.sides === 2 ? 'Send one or two images (the two sides of one card)' : 'Send exactly one image');
          else out.file = data;
        } else if (part.fieldname === 'image_base64' || part.fieldname === 'image_url') {
          setField(part.fieldname, data.toString('utf8'));
        }
      } else if ((KEYS as readonly string[]).includes(part.fieldname)) {
        if (part.valueTruncated) throw new ServiceError(ReaderErrors.bodyTooLarge, `The ${part.fieldname} field is larger than ${fieldLimit} bytes`);
        setField(part.fieldname, scalar(part.value) ?? '');
      }
    }
  } else if (request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body)) {
    const body = request.body as Record<string, unknown>;
    for (const k of KEYS) if (k in body) setField(k, scalar(body[k]) ?? '');
  }
  // `face` and `quality_check` may also come in the query string (the guide's `?quality_check=1`).
  const q = (request.query ?? {}) as Record<string, unknown>;
  if (out.face === undefined) out.face = scalar(q.face);
  if (out.qualityCheck === undefined) out.qualityCheck = scalar(q.quality_check);
  return out;
}

export async function readerRoutes(root: FastifyInstance, opts: ReaderRoutesOptions): Promise<void> {
  const { service, config } = opts;
  // Base64 text of the largest image, plus slack for form encoding.
  const fieldLimit = Math.ceil(config.maxImageBytes * 1.4) + 1024;
  const auth = requireApiKey(opts.credentials);
  const bodyLimit = Math.ceil(config.maxImageBytes * 1.6) + 1024 * 1024;
  const limits = { maxImageBytes: config.maxImageBytes, allowPrivateUrls: config.allowPrivateUrls, fetchTimeoutMs: config.fetchTimeoutMs };
  const tags = ['ID card reader'];
  const security = [{ apiKey: [] }];
  /** Each prefix is its own scope: the recognition error shape and multipart parsing. */
  const prepare = async (scope: FastifyInstance) => {
    useServiceErrors(scope, readerErrorShape);
    await scope.register(multipart, {
      limits: { fileSize: config.maxImageBytes, fieldSize: fieldLimit, files: 4, fields: 20, parts: 24 },
      throwFileSizeLimit: true,
    });
  };

  await root.register(
    async (scope) => {
      await prepare(scope);
      const idr = async (request: FastifyRequest): Promise<RecognitionEnvelope> => {
        const input = await readImageRequest(request, fieldLimit);
        const qualityCheck = wantsFlag(input.qualityCheck, 'quality_check');
        const image = await imageBytes(input, limits);
        // The guide: a failed quality check answers the quality result alone; a passed one, both (one item, docs/reader.md).
        const quality = qualityCheck ? await service.checkQuality(image) : undefined;
        if (quality && !qualityPassed(quality)) return { errorCode: 0, errorMessage: '', data: [quality] };
        const card = await service.read(image, false, request.appCode);
        return { errorCode: 0, errorMessage: '', data: [{ ...service.idrItem(card), ...quality }] };
      };
      const schema = { tags, security, summary: 'Read a Vietnamese ID card (image: file; image_url and image_base64 also accepted)' };
      scope.post('/vnm', { onRequest: auth, bodyLimit, schema }, idr);
    },
    { prefix: '/vision/idr' },
  );

  // The guide's fraud check: the reading, its checks, and the post-check as a second item.
  await root.register(
    async (scope) => {
      await prepare(scope);
      const fraud = async (request: FastifyRequest): Promise<RecognitionEnvelope> => {
        const input = await readImageRequest(request, fieldLimit, { sides: 2 });
        const face = wantsFace(input.face);
        const qualityCheck = wantsFlag(input.qualityCheck, 'quality_check');
        const images = [await imageBytes(input, limits), ...(input.secondFile ? [input.secondFile] : [])];
        if (qualityCheck) {
          const qualities = await Promise.all(images.map((image) => service.checkQuality(image)));
          if (!qualities.every(qualityPassed)) return { errorCode: 0, errorMessage: '', data: qualities };
          const answer = await service.fraudCheck(images, face, request.appCode, opts.platform.publicUrl);
          return { errorCode: 0, errorMessage: '', data: answer.map((item, i) => (i < qualities.length ? { ...item, ...qualities[i] } : item)) };
        }
        return { errorCode: 0, errorMessage: '', data: await service.fraudCheck(images, face, request.appCode, opts.platform.publicUrl) };
      };
      const schema = {
        tags,
        security,
        summary: 'ID card fraud check: the reading, checking_result (photocopy, recapture, MRZ, low scores; N/A where not measured) and post_check_result (E00-E22)',
      };
      scope.post('/id-fraudcheck', { onRequest: auth, bodyLimit, schema }, fraud);
    },
    { prefix: '/vision/vnm' },
  );

  // The guide's quality check alone: the same inputs and envelope; the item is the quality result.
  await root.register(
    async (scope) => {
      await prepare(scope);
      const check = async (request: FastifyRequest): Promise<RecognitionEnvelope> => {
        const image = await imageBytes(await readImageRequest(request, fieldLimit), limits);
        return { errorCode: 0, errorMessage: '', data: [await service.checkQuality(image)] };
      };
      const schema = {
        tags,
        security,
        summary: 'Quality of an ID card photo: bright spots, blur, luminance, resolution (image: file; image_url and image_base64 also accepted)',
      };
      scope.post('/vnm', { onRequest: auth, bodyLimit, schema }, check);
    },
    { prefix: '/vision/idr-qual' },
  );

  await root.register(
    async (scope) => {
      await prepare(scope);
      scope.post(
        '',
        {
          onRequest: auth,
          bodyLimit,
          schema: { tags, security, summary: 'Legacy ID card reading: exactly one of image, image_url, image_base64; face=1 adds the portrait' },
        },
        async (request): Promise<RecognitionEnvelope> => {
          const input = await readImageRequest(request, fieldLimit);
          const face = wantsFace(input.face);
          const image = await imageBytes(input, limits);
          const card = await service.read(image, face, request.appCode);
          return { errorCode: 0, errorMessage: '', data: [await service.cmtItem(card, face, opts.platform.publicUrl)] };
        },
      );
      scope.get<{ Params: { id: string } }>('/faces/:id', { schema: { tags, summary: 'A face cropped by /cmt with face=1' } }, async (request, reply) => {
        const m = /^([0-9a-f-]{36})\.jpg$/.exec(request.params.id);
        if (m && (await sendBlob(request, reply, opts.blobs, faceKey(m[1]), 'image/jpeg'))) return reply;
        throw new ServiceError(ReaderErrors.routeNotFound, 'No such face image');
      });
    },
    { prefix: '/cmt' },
  );

  // Passport data pages: the same inputs, limits and envelope as /vision/idr/vnm.
  await root.register(
    async (scope) => {
      await prepare(scope);
      const passport = async (request: FastifyRequest): Promise<RecognitionEnvelope> => {
        const input = await readImageRequest(request, fieldLimit);
        const image = await imageBytes(input, limits);
        const page = await service.readPassport(image);
        return { errorCode: 0, errorMessage: '', data: [passportItem(page)] };
      };
      const schema = { tags, security, summary: 'Read a Vietnamese passport data page (image: file; image_url and image_base64 also accepted)' };
      scope.post('/vnm', { onRequest: auth, bodyLimit, schema }, passport);
    },
    { prefix: '/vision/passport' },
  );

  // Driving licences: the same inputs, limits and envelope as /vision/idr/vnm.
  await root.register(
    async (scope) => {
      await prepare(scope);
      const dlr = async (request: FastifyRequest): Promise<RecognitionEnvelope> => {
        const input = await readImageRequest(request, fieldLimit);
        const image = await imageBytes(input, limits);
        const card = await service.readLicence(image);
        return { errorCode: 0, errorMessage: '', data: [licenceItem(card)] };
      };
      const schema = { tags, security, summary: 'Read a Vietnamese driving licence, either side (image: file; image_url and image_base64 also accepted)' };
      scope.post('/vnm', { onRequest: auth, bodyLimit, schema }, dlr);
    },
    { prefix: '/vision/dlr' },
  );
}
