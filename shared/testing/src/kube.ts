// `@svc/testing/kube`: a fake Kubernetes API server for tests (no kube-apiserver can run on these
// machines), apart from the package index because it loads @kubernetes/client-node.
export { FakeKubeApi, type Fault, type RecordedRequest } from "./fake-kube-api.ts";
export {
  ApiError,
  FakeStore,
  type Change,
  type ChangeType,
  type Obj,
  type ResourceConfig,
} from "./fake-kube-store.ts";
export { sleep, waitFor } from "./wait.ts";
export { recordingLogger, type LogEntry } from "./recording-logger.ts";
