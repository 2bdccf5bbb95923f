/**
 * Functions a service offers the console's playgrounds beyond its public API
 * (the face engine's view of a photo, say), so the console can show them
 * without importing the service's folder. A service that is not running
 * offers nothing, and the console says so.
 */

/** A rectangle in pixels of the uploaded photo as a viewer shows it (EXIF orientation applied). */
export interface PhotoBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** The detector's confidence, 0-1. */
  score: number;
}

/** What the face engine saw in one photo: the face it would compare, the other faces, and detections it dropped. */
export interface FacesInPhoto {
  /** Size of the photo the boxes refer to (EXIF-upright, before any downscaling). */
  width: number;
  height: number;
  /** The face face match compares (null: no face). */
  subject: PhotoBox | null;
  /**
   * What face match makes of the subject: "ok", or the reason it refuses or
   * notes it ("noFace", "tooSmall", "occluded"...), in the engine's own words.
   */
  verdict: string;
  /** Other faces, in the engine's subject order. */
  others: PhotoBox[];
  /** Detections that are not faces, with the rule that dropped each. */
  rejected: (PhotoBox & { reason: string })[];
  /** Clockwise degrees the engine turned the photo to find upright faces (boxes are already turned back). */
  rotation: 0 | 90 | 180 | 270;
}

/** The photo's faces, or null when the bytes are not a decodable image. */
export type FindFaces = (image: Buffer) => Promise<FacesInPhoto | null>;

/** Where one face collection stands with the deployment's recognisers. */
export interface FaceCollectionState {
  name: string;
  /** The recogniser that embedded the faces its search reads. */
  recogniser: string;
  /** That recogniser's similarity map version (null when this host lacks the recogniser). */
  similarityMap: string | null;
  faces: number;
  users: number;
  /** Faces without a kept crop: a reindex cannot re-embed them (their users enrol again). */
  withoutCrop: number;
  /** Faces whose vectors are another recogniser's (left by a forced reindex): search does not read them until their users enrol again. */
  notSearchable: number;
  /**
   * "current": embedded by the active recogniser; "reindex": by another one
   * installed here (`saola face reindex` moves it); "missing": by a recogniser
   * this host does not have (its requests fail until it is installed).
   */
  state: 'current' | 'reindex' | 'missing';
}

/** The active face recogniser and every collection of one application. */
export interface FaceCollectionsView {
  recogniser: { name: string; embedding: number; similarityMap: string; installed: string[] };
  collections: FaceCollectionState[];
}

/** One application's face collections (by its app code). */
export type ListFaceCollections = (appCode: string) => Promise<FaceCollectionsView>;

export class PlaygroundTools {
  private findFaces?: FindFaces;
  private faceCollections?: ListFaceCollections;

  /** The face service offers its engine's view of a photo (one provider; a second registration replaces the first). */
  offerFaceFinder(fn: FindFaces): void {
    this.findFaces = fn;
  }

  faceFinder(): FindFaces | undefined {
    return this.findFaces;
  }

  /** The face service offers its collections and the recogniser each is embedded by. */
  offerFaceCollections(fn: ListFaceCollections): void {
    this.faceCollections = fn;
  }

  faceCollectionLister(): ListFaceCollections | undefined {
    return this.faceCollections;
  }
}
