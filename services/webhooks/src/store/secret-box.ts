import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { SecretBox } from "../domain/ports.ts";

/**
 * Webhook signing secrets at rest. They must be usable to sign, so they cannot be hashed like
 * client secrets; they are sealed with AES-256-GCM under WEBHOOK_SECRET_KEY instead, with the
 * subscription id as additional authenticated data, so a sealed secret copied onto another row
 * does not open. Format: `v1.<base64url iv>.<base64url tag>.<base64url ciphertext>`.
 */
const FORMAT = "v1";

export function createSecretBox(keyBase64: string): SecretBox {
  const key = Buffer.from(keyBase64, "base64");
  if (key.length !== 32) throw new RangeError("the webhook secret key must be 32 bytes");
  return {
    seal(secret, subscriptionId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(subscriptionId));
      const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return [FORMAT, iv, cipher.getAuthTag(), ciphertext]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed, subscriptionId) {
      const [format, iv, tag, ciphertext] = sealed.split(".");
      if (format !== FORMAT || !iv || !tag || ciphertext === undefined)
        throw new Error("unrecognised sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(subscriptionId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

/**
 * The dispatcher's box: remembers what it opened, by subscription and sealed text, so each attempt
 * does not decrypt its subscription's secret again (docs/decisions/delivery-throughput.md). A
 * rotation seals a new text, so a new secret is a new entry; a text that fails to open is not kept.
 * At most `maxEntries` (oldest dropped first).
 */
export function openedSecretsCache(box: SecretBox, maxEntries: number): SecretBox {
  const opened = new Map<string, string>();
  return {
    seal: (secret, subscriptionId) => box.seal(secret, subscriptionId),
    open(sealed, subscriptionId) {
      const key = `${subscriptionId} ${sealed}`;
      const known = opened.get(key);
      if (known !== undefined) return known;
      const secret = box.open(sealed, subscriptionId);
      opened.set(key, secret);
      if (opened.size > maxEntries) opened.delete(opened.keys().next().value!);
      return secret;
    },
  };
}
