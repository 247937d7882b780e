// How a receiver verifies the signatures, with the guide and the verification packages.
import type { ComponentChildren } from "preact";
import type { Session } from "../api.ts";

/** A link when the installation gives an address; a path or package name is shown as text. */
function Ref(props: { target: string | undefined; fallback: string; children: ComponentChildren }) {
  const target = props.target ?? props.fallback;
  return /^(https?:\/\/|\/)/.test(target) ? (
    <a href={target} rel="noreferrer">
      {props.children}
    </a>
  ) : (
    <>
      {props.children}: <code>{target}</code>
    </>
  );
}

export function VerifyView({ session }: { session: Session }) {
  const links = session.links ?? {};
  return (
    <>
      <h1>Verify signatures</h1>
      <p>
        Every delivery carries <code>X-SVC-Timestamp</code> (Unix seconds) and{" "}
        <code>X-SVC-Signature</code>: <code>v1=</code> and the hex HMAC-SHA256 of{" "}
        <code>&lt;timestamp&gt;.&lt;raw body&gt;</code>, keyed with the subscription's secret.
        During a secret rotation it lists two, <code>v1=&lt;new&gt;,v1=&lt;previous&gt;</code>:
        accept the delivery when any one matches. Compare in constant time, over the raw bytes, and
        refuse a timestamp more than 300 seconds from your clock.
      </p>
      <ul>
        <li>
          <Ref
            target={links.verifying_signatures}
            fallback="docs/webhook-subscribers.md#receiving-and-verifying"
          >
            The subscriber guide, "Receiving and verifying"
          </Ref>
        </li>
        <li>
          <Ref target={links.node_package} fallback="@integration-service/webhooks">
            Node package
          </Ref>{" "}
          (<code>verify</code>, <code>createWebhookHandler</code>; in the repository:{" "}
          <code>packages/webhooks</code>)
        </li>
        <li>
          <Ref target={links.python_package} fallback="integration-service-webhooks">
            Python package
          </Ref>{" "}
          (<code>verify</code>; in the repository: <code>packages/webhooks-python</code>)
        </li>
        {links.api_reference && (
          <li>
            <Ref target={links.api_reference} fallback="/reference">
              API reference
            </Ref>
          </li>
        )}
      </ul>
      <h2>In Node</h2>
      <pre tabIndex={0}>{`import { createWebhookHandler } from "@integration-service/webhooks";

http.createServer(createWebhookHandler({
  // During a rotation, both secrets: a delivery signed by either is accepted.
  secret: [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_PREVIOUS].filter(Boolean),
  async onEvent(event) {
    // delivery is at least once: deduplicate on event.event_uuid
  },
}));`}</pre>
      <h2>In Python</h2>
      <pre tabIndex={0}>{`from integration_service_webhooks import verify

event = verify(raw_body, headers["X-SVC-Timestamp"], headers["X-SVC-Signature"], [secret])`}</pre>
    </>
  );
}
