/**
 * The protocol family (raw sockets: fetch and node:http refuse to send these) and the token
 * endpoint's own family (form bodies and HTTP Basic credentials).
 */
import fc from "fast-check";
import { printable, type HostileRequest } from "./requests.ts";
import { hostileText, longText, percentEncode } from "./strings.ts";

const READS = [
  "/v1/vacancies",
  "/v1/practices",
  "/v1/meta/vacancies",
  "/v1/candidates",
  "/v1/webhooks",
  "/v1/health",
  "/version",
  "/v1/vacancies/00000000-0000-4000-8000-000000000000",
  "/v1/practices/ACC%2F2009%2F117",
];
const BREAKS = ["\r\n", "\r", "\n", "\r\n\r\n", "\n\r", "\r\r\n", "\r\n ", "\r\n\t"];
const INJECTED = [
  "Set-Cookie: admin=1",
  "X-Admin: true",
  "Content-Length: 0",
  "Transfer-Encoding: chunked",
  "Authorization: Bearer forged",
  "",
  "GET /v1/health HTTP/1.1",
  "Host: evil.example",
];
const CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f"];

type Raw = { name: string; method: string; lines: string[]; body?: string; write?: boolean };
const head = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;
const standard = (path: string, method = "GET") => [
  `${method} ${path} HTTP/1.1`,
  "Host: 127.0.0.1",
  "Authorization: Bearer {TOKEN}",
  "Connection: close",
];

const path = fc.constantFrom(...READS);
const latin1 = (text: string) =>
  [...Buffer.from(text, "utf8")].map((b) => String.fromCharCode(b)).join("");

const kinds: Array<fc.Arbitrary<Raw>> = [
  fc
    .tuple(
      path,
      fc.constantFrom(...BREAKS),
      fc.constantFrom(...INJECTED),
      fc.constantFrom("X-Inject", "Authorization", "Accept", "Content-Type", "User-Agent"),
    )
    .map(([p, br, inj, name]) => {
      const lines = standard(p);
      const value = name === "Authorization" ? "Bearer {TOKEN}" : "a";
      lines.splice(2, name === "Authorization" ? 1 : 0, `${name}: ${value}${br}${inj}`);
      // An injected chunked framing that the parser accepts needs its last chunk, or the server
      // rightly waits for the body.
      return {
        name: "CR/LF inside a header value",
        method: "GET",
        lines,
        ...(inj.startsWith("Transfer-Encoding") ? { body: "0\r\n\r\n" } : {}),
      };
    }),
  fc.tuple(path, fc.constantFrom(...BREAKS), fc.constantFrom(...INJECTED)).map(([p, br, inj]) => {
    const lines = standard(p);
    lines[0] = `GET ${p}${br}${inj} HTTP/1.1`;
    return {
      name: "CR/LF inside the request target",
      method: "GET",
      lines,
      ...(inj.startsWith("Transfer-Encoding") ? { body: "0\r\n\r\n" } : {}),
    };
  }),
  fc
    .tuple(path, fc.constantFrom(...CONTROLS), fc.constantFrom("X-Ctl", "Authorization", "Host"))
    .map(([p, c, name]) => {
      const lines = standard(p).filter((l) => !l.startsWith(`${name}:`));
      lines.splice(
        1,
        0,
        name === "Authorization" ? `Authorization: Bearer {TOKEN}${c}` : `${name}: a${c}b`,
      );
      return { name: "control character inside a header value", method: "GET", lines };
    }),
  fc
    .tuple(
      path,
      fc.constantFrom(
        "X A: b",
        "X-A : b",
        " X-A: b",
        "(x): b",
        ": b",
        "X-A\tb: c",
        "X-Ä: b",
        "X-A",
        "X-A b",
        "X-A:\r\n b",
        "X-A: a\r\n\tfolded",
        "\u00ff: b",
        "X-A:: b",
      ),
    )
    .map(([p, bad]) => {
      const lines = standard(p);
      lines.splice(2, 0, latin1(bad));
      return { name: "malformed header line", method: "GET", lines };
    }),
  fc
    .tuple(
      path,
      fc.constantFrom(
        "GET {P}",
        "GET {P} HTTP/1.1 extra",
        "GET  {P} HTTP/1.1",
        "GET {P}  HTTP/1.1",
        "GET {P} HTTP/9.9",
        "GET {P} HTTP/1.1x",
        "GET {P} http/1.1",
        "get {P} HTTP/1.1",
        "G\x00ET {P} HTTP/1.1",
        "GET {P}\t HTTP/1.1",
        "GET {P}#fragment HTTP/1.1",
        "GET v1/health HTTP/1.1",
        "GET * HTTP/1.1",
        "GET http://evil.example{P} HTTP/1.1",
        "GET https://127.0.0.1:1{P} HTTP/1.1",
        "GET //evil.example{P} HTTP/1.1",
        "GET /\xc3\xa9 HTTP/1.1",
        "GET {P}\xff HTTP/1.1",
        "GET {P}\x7f HTTP/1.1",
        "FOO {P} HTTP/1.1",
        "G-E-T {P} HTTP/1.1",
        "GETT {P} HTTP/1.1",
        "CONNECT 127.0.0.1:5432 HTTP/1.1",
        "CONNECT {P} HTTP/1.1",
        "PRI * HTTP/2.0",
        "GET {P} HTTP/1.0",
        "GET {P} HTTP/0.9",
        "GET {P} HTTP/2",
        " GET {P} HTTP/1.1",
        "\r\nGET {P} HTTP/1.1",
        "\r\n\r\n\r\nGET {P} HTTP/1.1",
      ),
    )
    .map(([p, line]) => {
      const lines = standard(p);
      lines[0] = line.replaceAll("{P}", p);
      return {
        name: "malformed request line",
        method: line.startsWith("HEAD") ? "HEAD" : "GET",
        lines,
      };
    }),
  fc
    .constantFrom<[string, string]>(
      ["Content-Length: 4\r\nTransfer-Encoding: chunked", "0\r\n\r\n"],
      ["Content-Length: 2\r\nContent-Length: 3", "{}x"],
      ["Content-Length: -1", ""],
      ["Content-Length: +2", "{}"],
      ["Content-Length: 0x2", "{}"],
      ["Content-Length: 2, 2", "{}"],
      ["Content-Length: 2 2", "{}"],
      ["Content-Length: 99999999999999999999", ""],
      ["Transfer-Encoding: chunked, identity", "2\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: xchunked", "2\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: identity", "{}"],
      ["Transfer-Encoding:\tchunked", "2\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", "2\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked", "zz\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked", '2;ext="\r\n{}\r\n0\r\n\r\n'],
      ["Transfer-Encoding: chunked", "-2\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked", "2\r{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked", "ffffffffffffffffff\r\n{}\r\n0\r\n\r\n"],
      ["Transfer-Encoding: chunked", "2\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n"],
      ["Content-Length: 2", "{}GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"],
      ["Content-Length: 2", "{}\x00\x01garbage that is not a request"],
    )
    .chain(([framing, body]) =>
      fc.constantFrom("/v1/applications", "/v1/webhooks").map((p): Raw => ({
        name: "request smuggling framing",
        method: "POST",
        lines: [...standard(p, "POST"), "Content-Type: application/json", framing],
        body,
        write: true,
      })),
    ),
  fc
    .tuple(
      path,
      fc.integer({ min: 17_000, max: 70_000 }),
      fc.constantFrom("X-Big", "Authorization", "Cookie", "Host", "many", "target"),
    )
    .map(([p, size, where]) => {
      const lines = standard(p);
      if (where === "many")
        lines.splice(
          2,
          0,
          ...Array.from({ length: Math.ceil(size / 40) }, (_, i) => `X-H${i}: ${"v".repeat(30)}`),
        );
      else if (where === "target") lines[0] = `GET ${p}?q=${"a".repeat(size)} HTTP/1.1`;
      else if (where === "Authorization") lines[2] = `Authorization: Bearer ${"a".repeat(size)}`;
      else if (where === "Host") lines[1] = `Host: ${"a".repeat(size)}`;
      else lines.splice(2, 0, `${where}: ${"a".repeat(size)}`);
      return { name: "oversized request head", method: "GET", lines };
    }),
  fc
    .tuple(
      path,
      fc.constantFrom(
        "Expect: 100-continue",
        "Expect: 200-ok",
        "Expect: ",
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13",
        "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
        "Connection: keep-alive, Upgrade\r\nUpgrade: foo/1",
        "TE: trailers, deflate",
        "Connection: close, X-Drop-Me\r\nX-Drop-Me: 1",
      ),
    )
    .map(([p, extra]) => {
      const lines = standard(p).filter(
        (l) => !(extra.includes("Connection:") && l.startsWith("Connection:")),
      );
      lines.splice(2, 0, extra);
      return { name: "expectation or upgrade", method: "GET", lines };
    }),
  fc
    .tuple(
      path,
      fc.constantFrom("none", "empty", "double", "garbage", "userinfo", "port", "unicode"),
    )
    .map(([p, variant]) => {
      const lines = standard(p).filter((l) => !l.startsWith("Host:"));
      const host = {
        none: [],
        empty: ["Host: "],
        double: ["Host: a.example", "Host: b.example"],
        garbage: ["Host: /../\\"],
        userinfo: ["Host: user:pass@127.0.0.1"],
        port: ["Host: 127.0.0.1:99999"],
        unicode: [`Host: ${latin1("bücher.example")}`],
      }[variant];
      lines.splice(1, 0, ...host);
      return { name: "Host header", method: "GET", lines };
    }),
  fc.tuple(path, hostileText).map(([p, text]) => {
    const lines = standard(p);
    lines.splice(2, 0, `X-Raw: ${latin1(text).replace(/[\r\n]/g, "")}`);
    return { name: "raw UTF-8 bytes in a header value", method: "GET", lines };
  }),
];

export function protocolFamily(): fc.Arbitrary<HostileRequest> {
  return fc.oneof(...kinds).map((raw) =>
    printable({
      family: "protocol",
      endpoint: raw.name,
      target: "gateway",
      method: raw.method,
      path: raw.lines[0] ?? "",
      auth: { kind: "valid" },
      headers: [],
      write: raw.write === true,
      rawHead: head(raw.lines),
      ...(raw.body !== undefined ? { body: { kind: "text", text: raw.body } } : {}),
    }),
  );
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/**
 * The token endpoint. Never the demo client's secret: credentials are wrong, malformed or in the
 * wrong place, or the request is broken in itself, so no request may get a token.
 */
export function oauthFamily(demoClientId: string): fc.Arbitrary<HostileRequest> {
  const wrongSecret = fc.string({ minLength: 1, maxLength: 60 }).map((s) => `cs_${s}`);
  const basic: fc.Arbitrary<string | undefined> = fc.oneof(
    wrongSecret.map(
      (s) => `Basic ${b64(`${encodeURIComponent(demoClientId)}:${encodeURIComponent(s)}`)}`,
    ),
    fc
      .tuple(hostileText, hostileText)
      .map(([id, s]) => `Basic ${b64(`${percentEncode(id)}:${percentEncode(s)}`)}`),
    fc.tuple(hostileText, hostileText).map(([id, s]) => `Basic ${b64(`${id}:${s}`)}`),
    fc.constantFrom(
      "Basic",
      "Basic ",
      "Basic !!!!",
      "Basic a",
      "Basic YWJj",
      "Basic YTpi=",
      "Basic ===",
      `Basic ${b64("nocolon")}`,
      `Basic ${b64(":")}`,
      `Basic ${b64("\u0000:\u0000")}`,
      "Basic /w==",
      "Bearer abc",
      "Digest x",
      "basic    YTpi",
      `Basic ${b64(`${demoClientId}:%zz`)}`,
    ),
    longText(6_000).map((t) => `Basic ${b64(t)}`),
    fc.constant(undefined),
  );
  const grantOk = "grant_type=client_credentials";
  const form = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        grantOk,
        `${grantOk}&scope=`,
        `${grantOk}&scope=vacancies:read`,
        `${grantOk}&scope=vacancies:read%20webhooks:write`,
        `${grantOk}&unknown=1`,
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        "grant_type=",
        "grant_type=password",
        `${grantOk}&${grantOk}`,
        `${grantOk}&scope=crm-mirror:write`,
        `${grantOk}&scope=%FF%FE`,
        `${grantOk}&scope=a%00b`,
        `${grantOk}&client_id=${demoClientId}&client_secret=x`,
        `${grantOk}&scope=${"s".repeat(5_000)}`,
        "%zz=%zz",
        "&&&===",
        "grant_type=client_credentials;scope=x",
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(hostileText, hostileText)
        .map(([k, v]) => `${grantOk}&${percentEncode(k)}=${percentEncode(v)}`),
    },
  );
  const contentType = fc.oneof(
    { weight: 4, arbitrary: fc.constant("application/x-www-form-urlencoded") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "application/json",
        "text/plain",
        "application/x-www-form-urlencoded; charset=iso-8859-1",
        "application/x-www-form-urlencoded; charset=utf-8",
        "multipart/form-data; boundary=x",
        "",
      ),
    },
  );
  const query = fc.option(
    fc.constantFrom("grant_type=client_credentials", "client_secret=x", "%zz", ""),
    { nil: undefined, freq: 5 },
  );
  const method = fc.oneof(
    { weight: 9, arbitrary: fc.constant("POST") },
    { weight: 1, arbitrary: fc.constantFrom("GET", "PUT", "DELETE", "OPTIONS", "HEAD") },
  );
  const bytes = fc.option(fc.constantFrom("677261", "ff", "c3"), { nil: undefined, freq: 8 });
  return fc
    .tuple(basic, form, contentType, query, method, bytes)
    .map(([authorization, text, type, q, m, extra]) =>
      printable({
        family: "token endpoint",
        endpoint: "token",
        target: "gateway",
        method: m,
        path: q === undefined ? "/oauth/token" : `/oauth/token?${q}`,
        auth:
          authorization === undefined ? { kind: "none" } : { kind: "header", value: authorization },
        headers: [],
        write: true,
        ...(type === "" ? {} : { contentType: type }),
        body:
          extra === undefined
            ? { kind: "text", text }
            : {
                kind: "bytes",
                hex: Buffer.concat([Buffer.from(text, "utf8"), Buffer.from(extra, "hex")]).toString(
                  "hex",
                ),
              },
      }),
    );
}
