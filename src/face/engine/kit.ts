/**
 * The face engine's building blocks for engines that run them in their own
 * worker threads (liveness): detection, landmarks, alignment, embedding, eye
 * state and the image helpers, with the verified models. Other services reach
 * them through the face folder's public entry (src/face/index.ts).
 */
export { boxArea, type Box } from './detect.js';
export { cropResize, laplacianVariance, toGray, type RgbImage } from './image.js';
export { defaultModelDir, loadVerifiedModels } from './models.js';
export { alignFace, detectFaces, embed, eyeState, landmarks68, loadSessions, poseFromLandmarks } from './worker.js';
