{{/*
NetworkPolicy rules. An egress rule with an empty "to" would allow every destination, so a
dependency with neither cidrs nor peers fails the render instead.
*/}}

{{/*
Egress to one external dependency: (dict "what" "postgresql" "egress" .Values.postgresql.egress).
*/}}
{{- define "integration-service.egressTo" -}}
{{- if not (or .egress.cidrs .egress.peers) -}}
{{- fail (printf "networkPolicy: %s.egress needs cidrs or peers" .what) -}}
{{- end -}}
- to:
    {{- range .egress.cidrs }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
    {{- with .egress.peers }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - protocol: TCP
      port: {{ .egress.port }}
{{- end -}}

{{/* Cluster DNS. */}}
{{- define "integration-service.egressDns" -}}
- to:
    {{- toYaml .Values.networkPolicy.dns | nindent 4 }}
  ports:
    - protocol: UDP
      port: 53
    - protocol: TCP
      port: 53
{{- end -}}

{{/* Ingress rules of one component: (dict "root" $ "name" $name "traits" $traits). */}}
{{- define "integration-service.ingressRules" -}}
{{- $np := .root.Values.networkPolicy -}}
{{- if .traits.public }}
- from:
    {{- with $np.ingressController }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    # The `helm test` pod.
    - podSelector:
        matchLabels:
          {{- include "integration-service.selectorLabels" (dict "root" .root "name" "test") | nindent 10 }}
    {{- if eq .name "auth" }}
    # Every pod of the release fetches auth's JWKS.
    - podSelector:
        matchLabels:
          {{- include "integration-service.instanceSelector" .root | nindent 10 }}
    {{- end }}
  ports:
    - protocol: TCP
      port: http
{{- end }}
{{- with $np.metricsScrapers }}
- from:
    {{- toYaml . | nindent 4 }}
  ports:
    - protocol: TCP
      port: internal
{{- end }}
{{- end -}}

{{/* Egress rules of one component. */}}
{{- define "integration-service.egressRules" -}}
{{- $v := .root.Values -}}
{{- $np := $v.networkPolicy -}}
{{ include "integration-service.egressDns" .root }}
{{ include "integration-service.egressTo" (dict "what" "postgresql" "egress" $v.postgresql.egress) }}
{{ include "integration-service.egressTo" (dict "what" "nats" "egress" $v.nats.egress) }}
{{- if $v.otel.enabled }}
{{ include "integration-service.egressTo" (dict "what" "otel" "egress" $v.otel.egress) }}
{{- end }}
{{- if .traits.legacyDatabase }}
{{ include "integration-service.egressTo" (dict "what" "mysql" "egress" $v.mysql.egress) }}
{{- end }}
{{- if ne .name "auth" }}
- to:
    - podSelector:
        matchLabels:
          {{- include "integration-service.selectorLabels" (dict "root" .root "name" "auth") | nindent 10 }}
  ports:
    - protocol: TCP
      port: {{ include "integration-service.httpPort" . }}
{{- end }}
{{- if .traits.operator }}
- to:
    {{- range $np.kubeApiServer.cidrs }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  ports:
    {{- range $np.kubeApiServer.ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
# Subscriber endpoints: public addresses only, https only.
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        except:
          {{- toYaml $np.internet.exceptCidrs | nindent 10 }}
  ports:
    {{- range $np.internet.ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
{{- end }}
{{- end -}}
