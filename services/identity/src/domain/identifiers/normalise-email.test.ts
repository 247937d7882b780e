import { describe, expect, it } from "vitest";
import { createIdentifierHasher, lookupKeysOf } from "./lookup-keys.ts";
import { normaliseEmail } from "./normalise-email.ts";

describe("normaliseEmail", () => {
  it("trims, lower-cases and composes to NFC", () => {
    expect(normaliseEmail("  Jan.Peeters@Voorbeeld.BE\t")).toBe("jan.peeters@voorbeeld.be");
    expect(normaliseEmail("E\u0301lise@x.be")).toBe("\u00e9lise@x.be");
    expect(normaliseEmail("\u00c9lise@x.be")).toBe("\u00e9lise@x.be");
  });

  it.each([
    "",
    "jan",
    "jan@",
    "@x.be",
    "jan@x",
    "jan@@x.be",
    "jan peeters@x.be",
    "jan@x..be",
    `${"a".repeat(250)}@x.be`,
  ])("refuses %j", (raw) => {
    expect(normaliseEmail(raw)).toBeNull();
  });
});

describe("lookup keys", () => {
  const hash = createIdentifierHasher("a-pepper-of-at-least-thirty-two-bytes");

  it("are keyed: another pepper gives other keys, and a plain SHA-256 is not one of them", async () => {
    const { createHash } = await import("node:crypto");
    const [mine] = lookupKeysOf({ email: "a@b.be", phone: null }, hash);
    const [theirs] = lookupKeysOf(
      { email: "a@b.be", phone: null },
      createIdentifierHasher("another-pepper-of-at-least-32-bytes!"),
    );
    expect(mine?.hash.equals(theirs?.hash as Buffer)).toBe(false);
    expect(mine?.hash.equals(createHash("sha256").update("a@b.be").digest())).toBe(false);
  });

  it("put the e-mail first and leave out identifiers that do not normalise", () => {
    expect(lookupKeysOf({ email: "a@b.be", phone: "0470123456" }, hash).map((k) => k.kind)).toEqual(
      ["email", "phone"],
    );
    expect(
      lookupKeysOf({ email: "not an address", phone: "0470123456" }, hash).map((k) => k.kind),
    ).toEqual(["phone"]);
    expect(lookupKeysOf({ email: null, phone: "n/a" }, hash)).toEqual([]);
  });

  it("never give an e-mail address and a phone number the same key", () => {
    expect(hash("email", "x").equals(hash("phone", "x"))).toBe(false);
  });
});
