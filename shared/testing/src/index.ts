export { testEnv } from "./config.ts";
export { silentLogger, startApp, fetchJson, type StartedApp, type JsonResponse } from "./http.ts";
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
export { readEventStream, waitFor, sleep, type StreamReader } from "./event-stream.ts";
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
  installFetchContractValidation,
  validateWebhookPayload,
  type ContractValidation,
  type ObservedResponse,
} from "./contract.ts";
