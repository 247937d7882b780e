export { testEnv } from "./config.ts";
export { silentLogger, startApp, fetchJson, type StartedApp, type JsonResponse } from "./http.ts";
export { recordingLogger, type LogEntry } from "./recording-logger.ts";
export {
  createTestIssuer,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type TestIssuer,
  type MintOptions,
} from "./tokens.ts";
export { TcpProxy, unusedPort } from "./tcp-proxy.ts";
export { trickleRequest, type TrickleOutcome } from "./trickle.ts";
export { createTempPgDatabase, createTempMysqlDatabase, type TempDatabase } from "./databases.ts";
export { recordingClient, type StatementClient } from "./recording-db.ts";
export { slowStatements } from "./slow-statements.ts";
export { platformContract } from "./platform-contract.ts";
export { readEventStream, type StreamReader } from "./event-stream.ts";
export { sleep, waitFor } from "./wait.ts";
export {
  type PrivateNatsCluster,
  type PrivateNatsOptions,
  type PrivateNatsServer,
  startPrivateNatsCluster,
  startPrivateNatsServer,
} from "./nats-server.ts";
export { spawnServiceProcess, type ServiceProcess } from "./service-process.ts";
export { k8sTools, type K8sTools } from "./k8s-tools.ts";
export {
  createTestCa,
  startHttpsReceiver,
  type TestCa,
  type HttpsReceiver,
  type ReceivedRequest,
} from "./https-receiver.ts";
export { type PrivatePostgres, startPrivatePostgres } from "./private-postgres.ts";
export { type PrivateMariaDb, startPrivateMariaDb } from "./private-mariadb.ts";
export {
  ContractValidator,
  contractValidator,
  validateWebhookPayload,
  type ObservedResponse,
} from "./contract.ts";
export { installFetchContractValidation, type ContractValidation } from "./contract-fetch.ts";
export {
  describeChangeDetectingProcess,
  type ChangeDetectingProcess,
} from "./change-detecting-process.ts";
export {
  EVENT_PAYLOAD_FIELDS,
  eventSummary,
  expectEventPayload,
  expectEveryEventOnce,
  startLegacyReadWorld,
  type DetectorSchedule,
  type LegacyReadService,
  type LegacyReadWorld,
  type RunningReadApi,
} from "./legacy-read-world.ts";
