import ort from 'onnxruntime-node';
for (const m of ['detect','landmark','feature','liveness','pose','eye','age','gender']) {
  const s = await ort.InferenceSession.create(`/tmp/facepkg/package/model/fr_${m}.onnx`, {intraOpNumThreads:1});
  console.log(m, s.inputNames, JSON.stringify(s.inputMetadata), s.outputNames, JSON.stringify(s.outputMetadata));
}
