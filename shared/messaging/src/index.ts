export { connectNats, drainNats } from "./connection.ts";
export type { ConnectNatsOptions } from "./connection.ts";
export {
  jetStreamTopology,
  natsConnectSettings,
  SINGLE_SERVER,
  topologyFields,
} from "./settings.ts";
export type {
  JetStreamTopology,
  NatsConnectSettings,
  NatsSettings,
  TopologySettings,
} from "./settings.ts";
export { names } from "./subjects.ts";
export type { Names } from "./subjects.ts";
export {
  deliveriesConsumerConfig,
  deliveriesStreamConfig,
  eventsFanoutConsumerConfig,
  eventsStreamConfig,
} from "./stream-configs.ts";
export type { ConsumerSpec, StreamSpec } from "./stream-configs.ts";
export { ensureConsumer, ensureStream } from "./ensure.ts";
export type { EnsureOutcome } from "./ensure.ts";
export { publish } from "./publish.ts";
export type { PublishOptions } from "./publish.ts";
export {
  getHeader,
  getTraceContext,
  makeHeaders,
  natsHeaderGetter,
  natsHeaderSetter,
  setTraceContext,
} from "./headers.ts";
export type { TraceContext } from "./headers.ts";
export { startConsumer } from "./consumer.ts";
export type { Decision, Delivery, RunningConsumer, StartConsumerOptions } from "./consumer.ts";
export { MessagingRemoteError, MessagingUnavailableError } from "./errors.ts";
export { request, serve } from "./rpc.ts";
export type { RequestContext, RequestOptions, Responder, ServeOptions } from "./rpc.ts";
export { openKv, watchKv } from "./kv.ts";
export type { KvChange, KvWatcher, OpenKvOptions, WatchKvOptions } from "./kv.ts";
// Re-exported so services need no direct dependency on the client packages for these.
export { jetstream, jetstreamManager } from "@nats-io/jetstream";
export type { JetStreamClient, JetStreamManager, JsMsg, PubAck } from "@nats-io/jetstream";
export type { MsgHdrs, NatsConnection } from "@nats-io/transport-node";
export type { KV } from "@nats-io/kv";
