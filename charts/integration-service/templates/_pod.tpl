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

{{/* Scheduling settings shared by every pod. */}}
{{- define "integration-service.scheduling" -}}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The pod template of one component: (dict "root" $ "name" $name "traits" $traits). */}}
{{- define "integration-service.podTemplate" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $c := index $v.components .name -}}
{{- if ge (int $c.preStopSleepSeconds) (int $c.terminationGracePeriodSeconds) -}}
{{- fail (printf "components.%s: preStopSleepSeconds must be shorter than terminationGracePeriodSeconds" .name) -}}
{{- end -}}
metadata:
  labels:
    {{- include "integration-service.labels" . | nindent 4 }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    {{- if include "integration-service.hasInlineSecrets" $root }}
    {{- /* Inline secret values change the pods' environment: roll them when they change. */}}
    checksum/secrets: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
    {{- end }}
    {{- if $v.metrics.podAnnotations }}
    {{- include "integration-service.scrapeAnnotations" $root | nindent 4 }}
    {{- end }}
    {{- with $v.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "integration-service.componentName" . }}
  {{- /* Only the dispatcher talks to the Kubernetes API. */}}
  automountServiceAccountToken: {{ .traits.operator }}
  {{- /* Service links would inject <SVC>_PORT variables next to the contract's PORT. */}}
  enableServiceLinks: false
  terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
  {{- with $v.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- include "integration-service.podSecurityContext" $root | nindent 4 }}
  {{- if $v.topologySpread.enabled }}
  topologySpreadConstraints:
    {{- include "integration-service.topologySpread" . | trim | nindent 4 }}
  {{- end }}
  {{- with include "integration-service.scheduling" $root | trim }}
  {{- . | nindent 2 }}
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
{{- end -}}

{{/* The pod spec of a Job: (dict "root" $ "name" "migrations" "command" (list ...) "env" "..."
"resources" ...). */}}
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
{{- with include "integration-service.scheduling" $root | trim }}
{{ . }}
{{- end }}
containers:
  - name: {{ .name }}
    image: {{ include "integration-service.image" $root | quote }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    command:
      {{- toYaml .command | nindent 6 }}
    env:
      {{- .env | nindent 6 }}
    resources:
      {{- toYaml .resources | nindent 6 }}
    securityContext:
      {{- include "integration-service.containerSecurityContext" $root | nindent 6 }}
    volumeMounts:
      - name: tmp
        mountPath: /tmp
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ $v.tmpSizeLimit }}
{{- end -}}
