{{/*
Pod pieces shared by the Deployments and the Jobs: secure defaults, probes, the pod template.
*/}}

{{/* Pod security: never root, the runtime's default seccomp profile. */}}
{{- define "integration-service.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
fsGroup: {{ .Values.securityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container security: no privilege escalation, no capabilities, read-only root. */}}
{{- define "integration-service.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: {{ .Values.securityContext.readOnlyRootFilesystem }}
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
Probes on the internal port. /livez never touches a dependency, so an outage restarts nothing;
/readyz holds a pod back until its first connections are open, and a later outage of a shared
dependency keeps it in the Service answering the API's 503 envelope (docs/decisions/readiness-rule.md).
*/}}
{{- define "integration-service.probes" -}}
{{- $p := .Values.probes -}}
startupProbe:
  httpGet:
    path: /livez
    port: internal
  periodSeconds: {{ $p.startup.periodSeconds }}
  failureThreshold: {{ $p.startup.failureThreshold }}
  timeoutSeconds: {{ $p.startup.timeoutSeconds }}
livenessProbe:
  httpGet:
    path: /livez
    port: internal
  periodSeconds: {{ $p.liveness.periodSeconds }}
  failureThreshold: {{ $p.liveness.failureThreshold }}
  timeoutSeconds: {{ $p.liveness.timeoutSeconds }}
readinessProbe:
  httpGet:
    path: /readyz
    port: internal
  periodSeconds: {{ $p.readiness.periodSeconds }}
  failureThreshold: {{ $p.readiness.failureThreshold }}
  timeoutSeconds: {{ $p.readiness.timeoutSeconds }}
{{- end -}}

{{/* Prometheus annotations for the internal port's /metrics. */}}
{{- define "integration-service.scrapeAnnotations" -}}
prometheus.io/scrape: "true"
prometheus.io/port: {{ include "integration-service.internalPort" . | quote }}
prometheus.io/path: /metrics
{{- end -}}

{{/*
Spread over zones and nodes; matchLabelKeys keeps a rollout's new pods from counting the old.
*/}}
{{- define "integration-service.topologySpread" -}}
{{- $ts := .root.Values.topologySpread -}}
{{- range $key, $when := dict "topology.kubernetes.io/zone" $ts.zone "kubernetes.io/hostname" $ts.hostname }}
- maxSkew: 1
  topologyKey: {{ $key }}
  whenUnsatisfiable: {{ $when }}
  labelSelector:
    matchLabels:
      {{- include "integration-service.selectorLabels" $ | nindent 6 }}
  matchLabelKeys:
    - pod-template-hash
{{- end }}
{{- end -}}

{{/*
The pod settings of one workload, (dict "root" $ "own" <its values section>), as YAML: the top-level
value with the workload's own added (lists append, maps merge with the workload's key winning,
a scalar or affinity of the workload's replaces the top-level one).
*/}}
{{- define "integration-service.podExtras" -}}
{{- $v := .root.Values -}}
{{- $own := .own | default dict -}}
{{- $out := dict -}}
{{- range $key := list "extraEnv" "extraEnvFrom" "extraVolumes" "extraVolumeMounts" "sidecars" "initContainers" "tolerations" "topologySpreadConstraints" -}}
{{- $_ := set $out $key (concat (index $v $key | default list) (index $own $key | default list)) -}}
{{- end -}}
{{- range $key := list "nodeSelector" "podAnnotations" "podLabels" -}}
{{- $_ := set $out $key (merge (deepCopy (index $own $key | default dict)) (index $v $key | default dict)) -}}
{{- end -}}
{{- range $key := list "affinity" "priorityClassName" -}}
{{- $_ := set $out $key (index $own $key | default (index $v $key)) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* Scheduling settings of a pod, from podExtras. */}}
{{- define "integration-service.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{/* Pod annotations and labels of a Job: (dict "root" $ "ctx" $ctx "x" $extras). */}}
{{- define "integration-service.jobPodMetadata" -}}
labels:
  {{- include "integration-service.labels" .ctx | nindent 2 }}
  {{- with .x.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .x.podAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The pod template of one component: (dict "root" $ "name" $name "traits" $traits). */}}
{{- define "integration-service.podTemplate" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $c := index $v.components .name -}}
{{- $x := include "integration-service.podExtras" (dict "root" $root "own" $c) | fromYaml -}}
{{- if ge (int $c.preStopSleepSeconds) (int $c.terminationGracePeriodSeconds) -}}
{{- fail (printf "components.%s: preStopSleepSeconds must be shorter than terminationGracePeriodSeconds" .name) -}}
{{- end -}}
metadata:
  labels:
    {{- include "integration-service.labels" . | nindent 4 }}
    {{- with $x.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    {{- if include "integration-service.hasInlineSecrets" $root }}
    {{- /* Inline secret values change the pods' environment: roll them when they change. */}}
    checksum/secrets: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
    {{- end }}
    {{- /* A ServiceMonitor scrapes the pods already: annotations too would scrape them twice. */}}
    {{- if and $v.metrics.podAnnotations (not $v.metrics.serviceMonitor.enabled) }}
    {{- include "integration-service.scrapeAnnotations" $root | nindent 4 }}
    {{- end }}
    {{- with $x.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "integration-service.serviceAccountName" . }}
  {{- /* Only the dispatcher talks to the Kubernetes API. */}}
  automountServiceAccountToken: {{ .traits.operator }}
  {{- /* Service links would inject <SVC>_PORT variables next to the contract's PORT. */}}
  enableServiceLinks: false
  terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- include "integration-service.podSecurityContext" $root | nindent 4 }}
  {{- if or $v.topologySpread.enabled $x.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- if $v.topologySpread.enabled }}
    {{- include "integration-service.topologySpread" . | trim | nindent 4 }}
    {{- end }}
    {{- with $x.topologySpreadConstraints }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  {{- with include "integration-service.scheduling" $x | trim }}
  {{- . | nindent 2 }}
  {{- end }}
  {{- with $x.initContainers }}
  initContainers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: {{ .name }}
      image: {{ include "integration-service.image" $root | quote }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      command:
        - node
        {{- range $v.image.nodeArgs }}
        - {{ . | quote }}
        {{- end }}
        {{- /* The process preload beside the entry point: module resolution cache and tracing
        (OpenTelemetry patches modules as they load, so it must run before main). */}}
        - --import
        - ./{{ include "integration-service.runFile" (dict "root" $root "file" (printf "%s/instrument.ts" (dir .traits.entrypoint))) }}
        - {{ include "integration-service.runFile" (dict "root" $root "file" .traits.entrypoint) }}
      ports:
        {{- if .traits.public }}
        - name: http
          containerPort: {{ include "integration-service.httpPort" . }}
          protocol: TCP
        {{- end }}
        - name: internal
          containerPort: {{ include "integration-service.internalPort" . }}
          protocol: TCP
      env:
        {{- include "integration-service.env" . | nindent 8 }}
        {{- with $x.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $x.extraEnvFrom }}
      envFrom:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      resources:
        {{- toYaml $c.resources | nindent 8 }}
      {{- include "integration-service.probes" $root | nindent 6 }}
      lifecycle:
        {{- /* Endpoints and the ingress drop a terminating pod a little late; keep serving until
        they have, then SIGTERM drains in-flight work. Native sleep: no shell in the path. */}}
        preStop:
          sleep:
            seconds: {{ $c.preStopSleepSeconds }}
      securityContext:
        {{- include "integration-service.containerSecurityContext" $root | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        {{- with include "integration-service.natsVolumeMounts" $root | trim }}
        {{- . | nindent 8 }}
        {{- end }}
        {{- if .traits.signingKeys }}
        - name: signing-keys
          mountPath: {{ include "integration-service.signingKeysDir" . }}
          readOnly: true
        {{- end }}
        {{- with $x.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- with $x.sidecars }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  volumes:
    - name: tmp
      emptyDir:
        sizeLimit: {{ $v.tmpSizeLimit }}
    {{- with include "integration-service.natsVolumes" $root | trim }}
    {{- . | nindent 4 }}
    {{- end }}
    {{- if .traits.signingKeys }}
    - name: signing-keys
      secret:
        secretName: {{ include "integration-service.signingKeysSecret" $root }}
        # 0440 (decimal, so no YAML parser reads it as the number 440): owner and fsGroup read.
        defaultMode: 288
    {{- end }}
    {{- with $x.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}

{{/* The pod spec of a Job: (dict "root" $ "name" "migrations" "command" (list ...) "env" "..."
"resources" ... "x" $extras); $extras from podExtras. Sidecars are left out: a Job whose pod keeps
a container running never completes. */}}
{{- define "integration-service.jobPodSpec" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
restartPolicy: Never
automountServiceAccountToken: false
enableServiceLinks: false
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- include "integration-service.podSecurityContext" $root | nindent 2 }}
{{- with include "integration-service.scheduling" .x | trim }}
{{ . }}
{{- end }}
{{- with .x.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .x.initContainers }}
initContainers:
  {{- toYaml . | nindent 2 }}
{{- end }}
containers:
  - name: {{ .name }}
    image: {{ include "integration-service.image" $root | quote }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    command:
      {{- toYaml .command | nindent 6 }}
    env:
      {{- .env | nindent 6 }}
      {{- with .x.extraEnv }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    {{- with .x.extraEnvFrom }}
    envFrom:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    resources:
      {{- toYaml .resources | nindent 6 }}
    securityContext:
      {{- include "integration-service.containerSecurityContext" $root | nindent 6 }}
    volumeMounts:
      - name: tmp
        mountPath: /tmp
      {{- with .x.extraVolumeMounts }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ $v.tmpSizeLimit }}
  {{- with .x.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}
