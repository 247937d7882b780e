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
{{ include "integration-service.egressKubeApiServer" .root }}
{{ include "integration-service.egressInternet" .root }}
{{- end }}
{{- end -}}

{{/*
The Kubernetes API server's endpoints, as the dispatcher's packets carry them once the
`kubernetes` Service has translated them. Required: without it the dispatcher could not hold its
Lease or reconcile anything, and a wide private range here would undo the internet rule's
exceptions (docs/decisions/chart-egress.md).
*/}}
{{- define "integration-service.egressKubeApiServer" -}}
{{- $api := .Values.networkPolicy.kubeApiServer -}}
{{- if not $api.cidrs -}}
{{- fail "networkPolicy.kubeApiServer.cidrs is empty: the dispatcher needs the Kubernetes API server's endpoint addresses (kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes), each as a /32 or /128" -}}
{{- end -}}
- to:
    {{- range $api.cidrs }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  ports:
    {{- range $api.ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
{{- end -}}

{{/*
Subscriber endpoints: public addresses only, on the internet ports. IPv4 is everything but the
ranges below; IPv6 is global unicast (2000::/3) but its special-purpose blocks, plus the NAT64
well-known prefix (how an IPv6-only cluster reaches IPv4 subscribers) but for the same IPv4
ranges embedded in it. The lists are fixed, not values: a platform can except more
(networkPolicy.internet.exceptCidrs), never less.
*/}}
{{- define "integration-service.nonPublicIPv4" -}}
- 0.0.0.0/8
- 10.0.0.0/8
- 100.64.0.0/10
- 127.0.0.0/8
- 168.63.129.16/32
- 169.254.0.0/16
- 172.16.0.0/12
- 192.0.0.0/24
- 192.0.2.0/24
- 192.88.99.0/24
- 192.168.0.0/16
- 198.18.0.0/15
- 198.51.100.0/24
- 203.0.113.0/24
- 224.0.0.0/4
- 240.0.0.0/4
{{- end -}}

{{- define "integration-service.nonPublicIPv6" -}}
- 2001::/23
- 2001:db8::/32
- 2002::/16
- 3fff::/20
{{- end -}}

{{/* nonPublicIPv4 inside the NAT64 prefix (64:ff9b::/96 + the IPv4 prefix), in the same order. */}}
{{- define "integration-service.nonPublicNat64" -}}
- 64:ff9b::/104
- 64:ff9b::a00:0/104
- 64:ff9b::6440:0/106
- 64:ff9b::7f00:0/104
- 64:ff9b::a83f:8110/128
- 64:ff9b::a9fe:0/112
- 64:ff9b::ac10:0/108
- 64:ff9b::c000:0/120
- 64:ff9b::c000:200/120
- 64:ff9b::c058:6300/120
- 64:ff9b::c0a8:0/112
- 64:ff9b::c612:0/111
- 64:ff9b::c633:6400/120
- 64:ff9b::cb00:7100/120
- 64:ff9b::e000:0/100
- 64:ff9b::f000:0/100
{{- end -}}

{{- define "integration-service.egressInternet" -}}
{{- $internet := .Values.networkPolicy.internet -}}
{{- $extra4 := list -}}
{{- $extra6 := list -}}
{{- range $internet.exceptCidrs -}}
{{- if contains ":" . }}{{ $extra6 = append $extra6 . }}{{ else }}{{ $extra4 = append $extra4 . }}{{ end -}}
{{- end -}}
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        except:
          {{- include "integration-service.nonPublicIPv4" . | nindent 10 }}
          {{- with $extra4 }}
          {{- toYaml . | nindent 10 }}
          {{- end }}
    - ipBlock:
        cidr: 2000::/3
        except:
          {{- include "integration-service.nonPublicIPv6" . | nindent 10 }}
          {{- with $extra6 }}
          {{- toYaml . | nindent 10 }}
          {{- end }}
    - ipBlock:
        cidr: 64:ff9b::/96
        except:
          {{- include "integration-service.nonPublicNat64" . | nindent 10 }}
  ports:
    {{- range $internet.ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
{{- end -}}

{{/*
Hook weight of the Jobs' policies: below every hook Job's (migrations 0, seeding 5), so Helm
creates a policy before the Job it lets out.
*/}}
{{- define "integration-service.jobPolicyHookWeight" -}}-10{{- end -}}

{{/*
The policy of one Job's pods: no ingress; DNS and the named dependencies out. Takes (dict "root" $
"name" "migrations" "hook" true "egress" (list (dict "what" ... "egress" ...))).
*/}}
{{- define "integration-service.jobNetworkPolicy" -}}
{{- $ctx := dict "root" .root "name" .name }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "integration-service.componentName" $ctx }}
  labels:
    {{- include "integration-service.labels" $ctx | nindent 4 }}
  {{- if .hook }}
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: {{ include "integration-service.jobPolicyHookWeight" . | quote }}
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
  {{- end }}
spec:
  podSelector:
    matchLabels:
      {{- include "integration-service.selectorLabels" $ctx | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  egress:
    {{- include "integration-service.egressDns" .root | nindent 4 }}
    {{- range .egress }}
    {{- include "integration-service.egressTo" . | nindent 4 }}
    {{- end }}
{{- end -}}
