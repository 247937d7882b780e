{{/*
The environment contract of every process; each service's config.ts reads exactly these.
Called with (dict "root" $ "name" "auth" "traits" $traits).
*/}}

{{/* Where the NATS credential and TLS Secrets are mounted. */}}
{{- define "integration-service.natsAuthDir" -}}/var/run/secrets/integration-service/nats-auth{{- end -}}
{{- define "integration-service.natsTlsDir" -}}/var/run/secrets/integration-service/nats-tls{{- end -}}

{{/* NATS authentication and TLS variables (see nats.auth and nats.tls). */}}
{{- define "integration-service.natsEnv" -}}
{{- $n := .Values.nats -}}
{{- $a := $n.auth -}}
- name: NATS_REPLICAS
  value: {{ $n.replicas | toString | quote }}
{{- with $n.placement.cluster }}
- name: NATS_PLACEMENT_CLUSTER
  value: {{ . | quote }}
{{- end }}
{{- with $n.placement.tags }}
- name: NATS_PLACEMENT_TAGS
  value: {{ join "," . | quote }}
{{- end }}
{{- if eq $a.type "userPassword" }}
- name: NATS_USER
  valueFrom:
    secretKeyRef:
      name: {{ $a.existingSecret }}
      key: username
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $a.existingSecret }}
      key: password
{{- else if eq $a.type "token" }}
- name: NATS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ $a.existingSecret }}
      key: token
{{- else if eq $a.type "nkey" }}
- name: NATS_NKEY_SEED_FILE
  value: {{ printf "%s/seed" (include "integration-service.natsAuthDir" .) | quote }}
{{- else if eq $a.type "creds" }}
- name: NATS_CREDS_FILE
  value: {{ printf "%s/user.creds" (include "integration-service.natsAuthDir" .) | quote }}
{{- end }}
{{- if $n.tls.existingSecret }}
- name: NATS_TLS_CA_FILE
  value: {{ printf "%s/ca.crt" (include "integration-service.natsTlsDir" .) | quote }}
{{- if $n.tls.clientCertificate }}
- name: NATS_TLS_CERT_FILE
  value: {{ printf "%s/tls.crt" (include "integration-service.natsTlsDir" .) | quote }}
- name: NATS_TLS_KEY_FILE
  value: {{ printf "%s/tls.key" (include "integration-service.natsTlsDir" .) | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The NATS Secrets' volume mounts and volumes, for a pod's container and spec. */}}
{{- define "integration-service.natsVolumeMounts" -}}
{{- $n := .Values.nats -}}
{{- if has $n.auth.type (list "nkey" "creds") }}
- name: nats-auth
  mountPath: {{ include "integration-service.natsAuthDir" . }}
  readOnly: true
{{- end }}
{{- if $n.tls.existingSecret }}
- name: nats-tls
  mountPath: {{ include "integration-service.natsTlsDir" . }}
  readOnly: true
{{- end }}
{{- end -}}

{{- define "integration-service.natsVolumes" -}}
{{- $n := .Values.nats -}}
{{- if has $n.auth.type (list "nkey" "creds") }}
- name: nats-auth
  secret:
    secretName: {{ $n.auth.existingSecret }}
    items:
      - key: {{ ternary "seed" "user.creds" (eq $n.auth.type "nkey") }}
        path: {{ ternary "seed" "user.creds" (eq $n.auth.type "nkey") }}
    defaultMode: 288
{{- end }}
{{- if $n.tls.existingSecret }}
- name: nats-tls
  secret:
    secretName: {{ $n.tls.existingSecret }}
    defaultMode: 288
{{- end }}
{{- end -}}

{{/* Where auth's signing-key Secret is mounted (SIGNING_KEYS_DIR). */}}
{{- define "integration-service.signingKeysDir" -}}/var/run/secrets/integration-service/signing-keys{{- end -}}

{{- define "integration-service.env" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
- name: PORT
  value: {{ include "integration-service.httpPort" . | quote }}
- name: INTERNAL_PORT
  value: {{ include "integration-service.internalPort" . | quote }}
- name: LOG_LEVEL
  value: {{ $v.logLevel | quote }}
- name: ENVIRONMENT
  value: {{ $v.environment | quote }}
- name: PUBLIC_BASE_URL
  value: {{ $v.publicBaseUrl | quote }}
- name: NATS_SERVERS
  value: {{ join "," $v.nats.servers | quote }}
- name: NATS_NAMESPACE
  value: {{ $v.nats.namespace | quote }}
{{ include "integration-service.natsEnv" $root }}
- name: AUTH_JWKS_URL
  value: {{ printf "http://%s:%s/.well-known/jwks.json" (include "integration-service.componentName" (dict "root" $root "name" "auth")) (include "integration-service.httpPort" .) | quote }}
- name: TOKEN_ISSUER
  value: {{ default $v.publicBaseUrl $v.token.issuer | quote }}
- name: TOKEN_AUDIENCE
  value: {{ default $v.publicBaseUrl $v.token.audience | quote }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" $root "section" $v.postgresql "inline" $v.postgresql.url "key" "postgresql-url") | nindent 6 }}
- name: MIGRATE_ON_START
  value: {{ $v.migrateOnStart | toString | quote }}
{{- if .traits.legacyDatabase }}
- name: LEGACY_DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" $root "section" $v.mysql "inline" $v.mysql.url "key" "mysql-url") | nindent 6 }}
{{- end }}
{{- if .traits.warmUp }}
- name: WARM_UP_MAX_MS
  value: {{ $v.warmUp.maxMs | toString | quote }}
{{- end }}
{{- if .traits.signingKeys }}
- name: SIGNING_KEYS_DIR
  value: {{ include "integration-service.signingKeysDir" . | quote }}
{{- end }}
{{- if .traits.pepper }}
- name: IDENTITY_PEPPER
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" $root "section" $v.identityPepper "inline" $v.identityPepper.value "key" "identity-pepper") | nindent 6 }}
{{- end }}
{{- if .traits.webhookSecretKey }}
- name: WEBHOOK_SECRET_KEY
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" $root "section" $v.webhookSecretKey "inline" $v.webhookSecretKey.value "key" "webhook-secret-key") | nindent 6 }}
{{- end }}
{{- if .traits.operator }}
- name: OPERATOR_ENABLED
  value: "true"
- name: LEADER_ELECTION
  value: lease
- name: LEADER_ELECTION_NAME
  value: {{ include "integration-service.leaseName" $root | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- with $root.Values.rbac.secretNamespace }}
- name: OPERATOR_SECRET_NAMESPACE
  value: {{ . | quote }}
{{- end }}
{{- with $root.Values.operator.labelSelector }}
- name: OPERATOR_LABEL_SELECTOR
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{ include "integration-service.otelEnv" . }}
{{- end -}}

{{/* The standard OpenTelemetry SDK variables. */}}
{{- define "integration-service.otelEnv" -}}
{{- $v := .root.Values -}}
- name: OTEL_SERVICE_NAME
  value: {{ .name | quote }}
{{- if $v.otel.enabled }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $v.otel.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $v.otel.protocol | quote }}
- name: OTEL_TRACES_EXPORTER
  value: otlp
{{- /* Metrics are scraped from /metrics and logs go to stdout; only traces are pushed. */}}
- name: OTEL_METRICS_EXPORTER
  value: none
- name: OTEL_LOGS_EXPORTER
  value: none
- name: OTEL_TRACES_SAMPLER
  value: {{ $v.otel.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $v.otel.samplerArg | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ include "integration-service.otelResourceAttributes" . | quote }}
{{- else }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end }}
{{- end -}}

{{- define "integration-service.otelResourceAttributes" -}}
{{- $v := .root.Values -}}
{{- $attrs := list "service.namespace=integration-service" (printf "service.version=%s" .root.Chart.AppVersion) (printf "deployment.environment.name=%s" $v.environment) (printf "k8s.namespace.name=%s" .root.Release.Namespace) -}}
{{- range $key, $value := $v.otel.resourceAttributes -}}
{{- $attrs = append $attrs (printf "%s=%s" $key $value) -}}
{{- end -}}
{{- join "," $attrs -}}
{{- end -}}

{{/* Environment of a Job: (dict "root" $ "postgresql" true "mysql" false); each Job gets only the
database it works on. */}}
{{- define "integration-service.jobEnv" -}}
{{- $v := .root.Values -}}
- name: LOG_LEVEL
  value: {{ $v.logLevel | quote }}
- name: ENVIRONMENT
  value: {{ $v.environment | quote }}
{{- if .postgresql }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" .root "section" $v.postgresql "inline" $v.postgresql.url "key" "postgresql-url") | nindent 6 }}
{{- end }}
{{- if .mysql }}
- name: LEGACY_DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- include "integration-service.secretKeyRef" (dict "root" .root "section" $v.mysql "inline" $v.mysql.url "key" "mysql-url") | nindent 6 }}
{{- end }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end -}}
