// An integration with the integration service: list vacancies, apply to one, and receive and
// verify the webhook deliveries that follow. Configuration comes from the environment:
//   BASE_URL, CLIENT_ID, CLIENT_SECRET    the API and your client's credentials
//   RECEIVER_PORT                         where this process receives deliveries
//   RECEIVER_URL                          the public https:// address of that receiver
//   TLS_KEY_FILE, TLS_CERT_FILE           optional: serve HTTPS itself (else run it behind a
//                                         TLS-terminating proxy)
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { randomUUID } from "node:crypto";
import { IntegrationClient, NotFoundError } from "@integration-service/client";
import { createWebhookHandler } from "@integration-service/webhooks";

const env = process.env;
const api = new IntegrationClient({
  baseUrl: env.BASE_URL,
  clientId: env.CLIENT_ID,
  clientSecret: env.CLIENT_SECRET,
});

// 1. Read: the first pages of the published vacancies.
let vacancy;
let listed = 0;
for await (const page of api.pages("listVacancies", { query: { published: true, per_page: 50 } })) {
  vacancy ??= page.data[0];
  listed += page.data.length;
  console.log(
    `vacancies page ${page.meta.pagination.page}/${page.meta.pagination.total_pages} (request ${page.requestId})`,
  );
  if (listed >= 100) break;
}
if (!vacancy) throw new Error("no published vacancy to apply to");

// 2. Subscribe to application.created and receive the deliveries, verified.
const subscription = await api.call("createWebhook", {
  body: { url: env.RECEIVER_URL, event_types: ["application.created"] },
});
const { webhook_uuid, secret } = subscription.data;
const handled = new Set();
let resolveDelivery;
const delivered = new Promise((resolve) => (resolveDelivery = resolve));
const handler = createWebhookHandler({
  secret,
  onEvent(event, delivery) {
    if (handled.has(event.event_uuid)) return; // at least once: handle each event once
    handled.add(event.event_uuid);
    console.log(
      `verified ${event.event_type} ${event.entity.id} (delivery ${delivery.deliveryId})`,
    );
    resolveDelivery(event);
  },
  onError: (error) => console.error(`refused a delivery: ${error.message}`),
});
const tls = env.TLS_KEY_FILE && {
  key: readFileSync(env.TLS_KEY_FILE),
  cert: readFileSync(env.TLS_CERT_FILE),
};
const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
await new Promise((resolve) => server.listen(Number(env.RECEIVER_PORT), resolve));

try {
  // 3. Write: apply to the vacancy. The client sends an Idempotency-Key and reuses it on retries.
  const created = await api.call("createApplication", {
    body: {
      vacancy_uuid: vacancy.uuid,
      candidate: { email: `example-${randomUUID()}@example.org`, phone: null },
      consent: true,
    },
  });
  const application = created.data.application_uuid;
  console.log(`created application ${application} (request ${created.requestId})`);

  // 4. The delivery names the application; its links.self reads the current state.
  const event = await delivered;
  if (event.entity.id !== application) throw new Error(`unexpected event for ${event.entity.id}`);
  const current = await api.call("getApplication", { path: { application_uuid: application } });
  console.log(
    `application ${current.data.application_uuid} for vacancy ${current.data.vacancy_uuid}`,
  );
} finally {
  await api.call("deleteWebhook", { path: { webhook_uuid } });
  server.close();
}

// Errors carry their contract code and the request id to quote.
try {
  await api.call("getVacancy", { path: { uuid: randomUUID() } });
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(`${error.code} ${error.status} (request ${error.requestId})`);
}
