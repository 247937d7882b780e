import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
  type Resource,
} from "@opentelemetry/resources";

export interface ProcessIdentity {
  serviceName: string;
  serviceVersion: string;
  environment: string;
}

/**
 * This process's instance id: one per process start, the same for its traces and its metrics (the
 * preload and the entry point share this module, in the sources and in the bundles).
 */
const INSTANCE_ID = randomUUID();

/**
 * The resource of everything a process exports, traces and metrics alike: the SDK's defaults, then
 * our own attributes (service name, version, environment, the instance id, the host name, which is
 * the pod's in Kubernetes), then `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`, which win.
 */
export function processResource(identity: ProcessIdentity): Resource {
  return defaultResource()
    .merge(
      resourceFromAttributes({
        "service.name": identity.serviceName,
        "service.version": identity.serviceVersion,
        "deployment.environment.name": identity.environment,
        "service.instance.id": INSTANCE_ID,
        "host.name": hostname(),
      }),
    )
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }));
}
