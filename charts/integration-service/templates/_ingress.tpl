{{/*
Ingress paths from routes.json. Prefix matching is by path element and the longest prefix wins,
the same rule the gateway applies. A route naming a component that is not public fails the render.
*/}}
{{- define "integration-service.ingressPaths" -}}
{{- $components := include "integration-service.components" . | fromYaml -}}
{{- $routes := (.Files.Get "routes.json" | fromJson).routes -}}
{{- range $routes }}
{{- $traits := required (printf "routes.json: unknown service %q" .service) (index $components .service) }}
{{- if not $traits.public }}
{{- fail (printf "routes.json: %s serves no public port" .service) }}
{{- end }}
- path: {{ .prefix | quote }}
  pathType: Prefix
  backend:
    service:
      name: {{ include "integration-service.componentName" (dict "root" $ "name" .service) }}
      port:
        name: http
{{- end }}
{{- end -}}
