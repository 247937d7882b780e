import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadSigningKeys } from "../../services/auth/src/domain/keys/signing-keys.ts";

const DEV_SECRETS = fileURLToPath(new URL("../../k8s/dev/secrets.yaml", import.meta.url));

type Secret = { kind?: string; metadata?: { name?: string }; stringData?: Record<string, string> };

describe("the development Secrets Tilt applies (k8s/dev/secrets.yaml)", () => {
  it("hold a signing key auth loads as it loads the mounted Secret", async () => {
    const secrets = parseAllDocuments(readFileSync(DEV_SECRETS, "utf8")).map(
      (d) => d.toJS() as Secret,
    );
    const keys = secrets.find((s) => s.metadata?.name === "isvc-dev-signing-keys");
    expect(keys?.stringData).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "dev-signing-keys-"));
    try {
      for (const [file, content] of Object.entries(keys!.stringData!))
        writeFileSync(join(dir, file), content);
      const loaded = await loadSigningKeys(dir);
      expect(loaded.active.kid).toBe("dev-2026-01");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
