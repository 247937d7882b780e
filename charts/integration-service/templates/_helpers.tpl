{{/*
Names, labels and the component table. Templates stay a few lines long by calling these.
Component helpers take a dict: (dict "root" $ "name" "auth").
*/}}

{{/* Chart name for app.kubernetes.io/name. */}}
{{- define "integration-service.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Prefix of every object name: the release name alone, so Service DNS names are short and fixed
(AUTH_JWKS_URL is http://<release>-auth:8080/...). Cut to 40 characters so that
"<prefix>-<component>" stays within the 63 of a DNS label.
*/}}
{{- define "integration-service.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Object name of one component: <fullname>-<name>. */}}
{{- define "integration-service.componentName" -}}
{{- printf "%s-%s" (include "integration-service.fullname" .root) .name -}}
{{- end -}}

{{/*
The file node runs for a source file of the image, (dict "root" $ "file" "services/x/src/main.ts"):
the file itself with image.runSources, else its compiled bundle, dist/<workspace>/<file>.js, the
rule of @svc/manifest bundlePath (a chart test compares the two).
*/}}
{{- define "integration-service.runFile" -}}
{{- if .root.Values.image.runSources -}}
{{- .file -}}
{{- else -}}
{{- $parts := splitList "/" .file -}}
{{- $group := index $parts 0 -}}
{{- if has $group (list "services" "shared") }}{{ $group = index $parts 1 }}{{ end -}}
{{- printf "dist/%s/%s.js" $group (base .file | trimSuffix ".ts") -}}
{{- end -}}
{{- end -}}

{{- define "integration-service.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that pick every pod of this release. */}}
{{- define "integration-service.instanceSelector" -}}
app.kubernetes.io/name: {{ include "integration-service.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector labels of one component; never change them (Deployment selectors are immutable). */}}
{{- define "integration-service.selectorLabels" -}}
{{ include "integration-service.instanceSelector" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Standard labels of one component's objects. */}}
{{- define "integration-service.labels" -}}
helm.sh/chart: {{ include "integration-service.chart" .root }}
{{ include "integration-service.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: integration-service
{{- end -}}

{{/*
What each process is, as facts of the code rather than settings: its entry point, whether it
serves the public API (http port, Ingress backend), and which dependencies and secrets it needs.
The dispatcher shares the webhooks codebase and environment; it alone talks to the Kubernetes API
and to subscriber endpoints.
*/}}
{{- define "integration-service.components" -}}
auth:
  entrypoint: services/auth/src/main.ts
  public: true
  legacyDatabase: false
  signingKeys: true
  pepper: false
  operator: false
  webhookSecretKey: false
  warmUp: false
practices:
  entrypoint: services/practices/src/main.ts
  public: true
  legacyDatabase: true
  signingKeys: false
  pepper: false
  operator: false
  webhookSecretKey: false
  warmUp: true
vacancies:
  entrypoint: services/vacancies/src/main.ts
  public: true
  legacyDatabase: true
  signingKeys: false
  pepper: false
  operator: false
  webhookSecretKey: false
  warmUp: true
identity:
  entrypoint: services/identity/src/main.ts
  public: true
  legacyDatabase: false
  signingKeys: false
  pepper: true
  operator: false
  webhookSecretKey: false
  warmUp: true
webhooks:
  entrypoint: services/webhooks/src/main.ts
  public: true
  legacyDatabase: false
  signingKeys: false
  pepper: false
  operator: false
  webhookSecretKey: true
  warmUp: false
dispatcher:
  entrypoint: services/webhooks/src/dispatcher-main.ts
  public: false
  legacyDatabase: false
  signingKeys: false
  pepper: false
  operator: true
  webhookSecretKey: true
  warmUp: false
{{- end -}}

{{/* Ports every process listens on (PORT and INTERNAL_PORT). */}}
{{- define "integration-service.httpPort" -}}8080{{- end -}}
{{- define "integration-service.internalPort" -}}9464{{- end -}}

{{/*
The image repository: with global.imageRegistry, that registry replaces the repository's own (its
first path element when that names a host: it has a dot or a port, or is localhost) or is put
before a repository without one.
*/}}
{{- define "integration-service.imageRepository" -}}
{{- $repo := .Values.image.repository -}}
{{- with (.Values.global | default dict).imageRegistry -}}
{{- $parts := splitList "/" $repo -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{- $repo = join "/" (prepend (rest $parts) .) -}}
{{- else -}}
{{- $repo = printf "%s/%s" . $repo -}}
{{- end -}}
{{- end -}}
{{- $repo -}}
{{- end -}}

{{/* The image reference; a digest wins over the tag. */}}
{{- define "integration-service.image" -}}
{{- if .Values.image.digest -}}
{{ include "integration-service.imageRepository" . }}@{{ .Values.image.digest }}
{{- else -}}
{{ include "integration-service.imageRepository" . }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{/* The ServiceAccount of one component: serviceAccount.name, or <fullname>-<name>. */}}
{{- define "integration-service.serviceAccountName" -}}
{{- (index .root.Values.components .name).serviceAccount.name | default (include "integration-service.componentName" .) -}}
{{- end -}}

{{/*
The dispatcher's election (its Lease, LEADER_ELECTION_NAME): per release, so two releases in one
namespace never contend for one Lease.
*/}}
{{- define "integration-service.leaseName" -}}
{{- printf "%s-dispatcher" (include "integration-service.fullname" .) -}}
{{- end -}}

{{/* Name of the Secret the chart writes inline secret values into. */}}
{{- define "integration-service.secretName" -}}
{{- printf "%s-secrets" (include "integration-service.fullname" .) -}}
{{- end -}}

{{/*
secretKeyRef of one secret value. Takes (dict "root" $ "section" .Values.postgresql "inline"
.Values.postgresql.url "key" "postgresql-url"): an inline value lives in the chart's Secret under
"key"; otherwise the existing Secret is used.
*/}}
{{- define "integration-service.secretKeyRef" -}}
{{- if .inline -}}
name: {{ include "integration-service.secretName" .root }}
key: {{ .key }}
{{- else -}}
name: {{ required (printf "%s: set an inline value or existingSecret" .key) .section.existingSecret }}
key: {{ .section.existingSecretKey }}
{{- end -}}
{{- end -}}

{{/* Name of the Secret mounted as auth's signing-key directory. */}}
{{- define "integration-service.signingKeysSecret" -}}
{{- if .Values.signingKeys.keys -}}
{{- printf "%s-signing-keys" (include "integration-service.fullname" .) -}}
{{- else -}}
{{- required "signingKeys: set keys or existingSecret" .Values.signingKeys.existingSecret -}}
{{- end -}}
{{- end -}}

{{/* True when any secret value is given inline, so the chart must write its Secret. */}}
{{- define "integration-service.hasInlineSecrets" -}}
{{- if or .Values.postgresql.url .Values.mysql.url .Values.identityPepper.value .Values.webhookSecretKey.value -}}true{{- end -}}
{{- end -}}

{{/* Hook annotations for objects a pre-install Job needs (they must exist before the release's
ordinary objects do). */}}
{{- define "integration-service.preInstallObjectAnnotations" -}}
helm.sh/hook: pre-install,pre-upgrade
helm.sh/hook-weight: "-10"
helm.sh/hook-delete-policy: before-hook-creation
{{- end -}}
