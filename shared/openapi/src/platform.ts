/**
 * The platform endpoints every service serves (shared/http `createHttpApp`): health and version,
 * public, under /v1 and as unversioned aliases.
 */
import { API_VERSION } from "@svc/http";
import type { NamedSchema, OperationSpec } from "./operation.ts";

const health: NamedSchema = {
  name: "Health",
  description: "Not in the envelope; contains no database detail.",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["service", "status", "version"],
    properties: {
      service: {
        type: "string",
        description: "The service that answered (and whose process is up); not the installation.",
      },
      status: { const: "ok" },
      version: {
        type: "string",
        pattern: "^\\d+\\.\\d+\\.\\d+$",
        description: "The installation's semantic version, also `info.version` of this document.",
      },
    },
  },
};

const version: NamedSchema = {
  name: "Version",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["api_version", "build", "php", "environment"],
    properties: {
      api_version: { const: API_VERSION },
      build: {
        type: "string",
        pattern: "^\\d+\\.\\d+\\.\\d+$",
        description: "The installation's semantic version.",
      },
      php: {
        type: "string",
        description:
          "The runtime's version (the name is kept for compatibility; it carries the Node.js version).",
      },
      environment: { type: "string", enum: ["production", "sandbox"] },
    },
  },
};

function healthOp(path: string, operationId: string): OperationSpec {
  return {
    operationId,
    method: "get",
    path,
    summary: "Service health",
    description:
      "Public. Each service answers it for itself, naming itself in `service`; through the public address (the gateway, the Ingress) `auth` answers. It says that one process is up, nothing about the other services or any dependency (their readiness is each process's internal `/readyz`).",
    tag: "Platform",
    auth: { public: true },
    responses: { 200: { description: "The service is up.", body: { raw: health } } },
  };
}

function versionOp(path: string, operationId: string): OperationSpec {
  return {
    operationId,
    method: "get",
    path,
    summary: "API and installation version",
    description:
      "Public. `api_version` is the path's `v1`; `build` is the installation's semantic version.",
    tag: "Platform",
    auth: { public: true },
    responses: {
      200: {
        description: "Versions and environment, in the envelope.",
        body: { envelope: "data", schema: version },
      },
    },
  };
}

export const PLATFORM_OPERATIONS: ReadonlyArray<OperationSpec> = [
  healthOp("/health", "getHealth"),
  healthOp("/v1/health", "getHealthV1"),
  versionOp("/version", "getVersion"),
  versionOp("/v1/version", "getVersionV1"),
];
