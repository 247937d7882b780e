import { KubeConfig } from "@kubernetes/client-node";

/**
 * The API server and credentials a process uses: the pod's ServiceAccount (token and CA under
 * /var/run/secrets, KUBERNETES_SERVICE_HOST/PORT) or, when `file` is given (KUBECONFIG), that
 * kubeconfig file's current context, as controller-runtime and kubectl read it.
 */
export function loadKubeConfig(file?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (file === undefined) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromFile(file);
  return kubeConfig;
}
