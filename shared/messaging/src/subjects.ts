/**
 * Every subject, stream, consumer and bucket name, in one place. All are derived from a namespace
 * so that several installations, or parallel test files, can share one NATS server without
 * seeing each other's messages: subjects start with `<ns>.`, streams with `<NS>_`.
 */

// Lower-case, starts with a letter: valid as a subject token, and upper-cased as a stream prefix.
const NAMESPACE = /^[a-z][a-z0-9_]{0,31}$/;
// An event type may span tokens ("vacancy.updated") but holds no wildcard, space or empty token.
const EVENT_TYPE = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;
// One subject token: no dots, wildcards or whitespace.
const TOKEN = /^[A-Za-z0-9_-]+$/;

export type Names = Readonly<{
  namespace: string;
  eventsStream: string;
  /** Filter covering every event subject; the events stream's only subject. */
  eventsWildcard: string;
  eventSubject: (type: string) => string;
  deliveriesStream: string;
  deliveriesWildcard: string;
  /** One delivery message per (event, subscription); the subscription id is the last token. */
  deliverySubject: (subscriptionId: string) => string;
  consumers: Readonly<{ eventsFanout: string; deliveries: string }>;
  revocationsBucket: string;
  rpc: Readonly<{ vacancyExists: string; practiceExists: string }>;
}>;

export function names(namespace: string): Names {
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(`namespace must match ${NAMESPACE}, got ${JSON.stringify(namespace)}`);
  }
  const prefix = namespace.toUpperCase();
  return Object.freeze({
    namespace,
    eventsStream: `${prefix}_EVENTS`,
    eventsWildcard: `${namespace}.events.>`,
    eventSubject: (type: string) =>
      `${namespace}.events.${checked(type, EVENT_TYPE, "event type")}`,
    deliveriesStream: `${prefix}_WEBHOOK_DELIVERIES`,
    deliveriesWildcard: `${namespace}.webhook.delivery.>`,
    deliverySubject: (subscriptionId: string) =>
      `${namespace}.webhook.delivery.${checked(subscriptionId, TOKEN, "subscription id")}`,
    // Consumer names are scoped to their stream, so they need no namespace of their own.
    consumers: Object.freeze({ eventsFanout: "webhook-fanout", deliveries: "webhook-dispatcher" }),
    revocationsBucket: `${namespace}_revocations`,
    rpc: Object.freeze({
      vacancyExists: `${namespace}.rpc.vacancies.exists`,
      practiceExists: `${namespace}.rpc.practices.exists`,
    }),
  });
}

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value))
    throw new RangeError(`${what} must match ${pattern}, got ${JSON.stringify(value)}`);
  return value;
}
