/**
 * The selfie step's `face_search`: the application's collections
 * (`face_search_collections`) searched for the selfie and for the document's
 * portrait through the face service's public entry, `face_search_top_k` users
 * each, in the guide's shape `{<collection>: {selfie: [...], document: [...]}}`.
 * An item is face search's `{id, name, similarity}` (0-1) with the guide's
 * `face_type` (docs/ekyc.md#face-search).
 */
import type { FaceSearchService, SearchHit } from '../face/index.js';
import { PlatformError } from '../platform/http/errors.js';

export type FaceSearchStage = Pick<FaceSearchService, 'searchCollections'>;

export interface FaceSearchItem extends SearchHit {
  /** "selfie", or the session's document type ("idr", "dlr", "passport") for the portrait. */
  face_type: string;
}

export interface CollectionAnswer {
  selfie: FaceSearchItem[];
  document: FaceSearchItem[];
  /** Only when the collection could not be searched: why. */
  error?: string;
}

/** The error of a collection the application does not have (a name in the settings, none in face search). */
export const COLLECTION_NOT_FOUND = 'collection not found';
/** The error of a collection whose faces this host cannot compare (its recogniser is not installed here). */
export const COLLECTION_UNSEARCHABLE = 'collection could not be searched';

export async function faceSearchAnswer(
  search: FaceSearchStage,
  appCode: string,
  collections: readonly string[],
  topK: number,
  faces: { selfie: Buffer; document: Buffer; documentType: string },
): Promise<Record<string, CollectionAnswer>> {
  let found: [Map<string, SearchHit[] | undefined>, Map<string, SearchHit[] | undefined>];
  try {
    found = await Promise.all([search.searchCollections(appCode, collections, faces.selfie, topK), search.searchCollections(appCode, collections, faces.document, topK)]);
  } catch (err) {
    // A busy engine is the step's 429 (the client tries again); anything else leaves the passed selfie passed.
    if (err instanceof PlatformError) throw err;
    return Object.fromEntries(collections.map((name) => [name, { selfie: [], document: [], error: COLLECTION_UNSEARCHABLE }]));
  }
  const [bySelfie, byDocument] = found;
  const answer: Record<string, CollectionAnswer> = {};
  for (const name of collections) {
    const selfie = bySelfie.get(name);
    const document = byDocument.get(name);
    answer[name] =
      selfie === undefined || document === undefined
        ? { selfie: [], document: [], error: COLLECTION_NOT_FOUND }
        : {
            selfie: selfie.map((hit) => ({ ...hit, face_type: 'selfie' })),
            document: document.map((hit) => ({ ...hit, face_type: faces.documentType })),
          };
  }
  return answer;
}
