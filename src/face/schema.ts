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
};

export type FaceTables = {
  face_collections: FaceCollectionRow;
  face_users: FaceUserRow;
  face_embeddings: FaceEmbeddingRow;
};
