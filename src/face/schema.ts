/** Row types of the face tables (ids UUIDv7 text, timestamps ISO-8601 text). */

/** A named collection of users, per application. */
export type FaceCollectionRow = {
  id: string;
  app_code: string;
  name: string;
  created_at: string;
  /** The seq of the collection's latest face: bumped in the transaction that adds one. */
  faces_seq: number;
  /** Bumped in the transaction that deletes faces: an index built at another epoch is rebuilt. */
  faces_epoch: number;
  /** The recogniser whose embeddings search serves (null: the shipped one); a reindex switches it. */
  model: string | null;
};

/** A user of a collection: the client's id (unique in the collection) and a display name. */
export type FaceUserRow = {
  id: string;
  app_code: string;
  collection_id: string;
  user_id: string;
  name: string;
  created_at: string;
  updated_at: string;
};

/** One indexed face: a 512-d L2-normalised float32 embedding as base64 text, and the model that made it. */
export type FaceEmbeddingRow = {
  id: string;
  app_code: string;
  collection_id: string;
  user_row_id: string;
  embedding: string;
  model: string;
  created_at: string;
  /** 1, 2, ... per collection in commit order (face_collections.faces_seq at the add). */
  seq: number;
  /** Blob key of the face's aligned crop (null: enrolled without one, so it cannot be re-embedded). */
  crop_key: string | null;
};

/** A reindex's embedding of a face by the recogniser it moves the collection to; folded into face_embeddings at the switch. */
export type FaceStagedEmbeddingRow = {
  face_id: string;
  app_code: string;
  collection_id: string;
  model: string;
  embedding: string;
  created_at: string;
};

/** A recogniser's similarity map fitted by `saola face calibrate` (knots and report as JSON). */
export type FaceSimilarityMapRow = {
  model: string;
  version: string;
  knots: string;
  report: string;
  fitted_at: string;
};

export type FaceTables = {
  face_collections: FaceCollectionRow;
  face_users: FaceUserRow;
  face_embeddings: FaceEmbeddingRow;
  face_staged_embeddings: FaceStagedEmbeddingRow;
  face_similarity_maps: FaceSimilarityMapRow;
};
