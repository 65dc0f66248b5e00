// Benchmark peer: the same small GPU cluster as bench/bare_cluster.py, built with EKS Blueprints
// (the JavaScript peer), so `make bench` can compare what users of each wait for. Plain JavaScript:
// nothing but `node` runs at measure time.
//
// One aws-eks-v2 cluster (Blueprints' V2 cluster provider, the same construct library ours uses) on
// Kubernetes 1.35, the newest this Blueprints release supports (its DEFAULT_VERSION, and the newest
// KubernetesVersion constant of the aws-cdk-lib it pins); one managed node group of g6.xlarge on the
// NVIDIA AL2023 AMI; one Helm add-on (the NVIDIA DRA driver chart ours installs). Blueprints' own
// defaults stay on (its VPC and secrets-encryption KMS key), as a Blueprints user would get them.
// Writes the cloud assembly to CDK_OUTDIR (a fresh temporary directory when unset).
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const cdk = require("aws-cdk-lib");
const ec2 = require("aws-cdk-lib/aws-ec2");
const eks = require("aws-cdk-lib/aws-eks-v2");
const blueprints = require("@aws-quickstart/eks-blueprints");

/** A generic Helm add-on: the chart, pinned, with no values. */
class DraDriverAddOn extends blueprints.HelmAddOn {
  constructor() {
    super({
      name: "dra-driver-nvidia-gpu",
      chart: "dra-driver-nvidia-gpu",
      release: "dra-driver-nvidia-gpu",
      version: "0.4.1",
      repository: "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
      namespace: "nvidia",
    });
  }

  deploy(clusterInfo) {
    return Promise.resolve(this.addHelmChart(clusterInfo, {}, true));
  }
}

async function main() {
  const outdir = process.env.CDK_OUTDIR || fs.mkdtempSync(path.join(os.tmpdir(), "eks-blueprints-"));
  const app = new cdk.App({ outdir });
  const clusterProvider = blueprints
    .clusterBuilderv2()
    .withCommonOptions({ defaultCapacityType: eks.DefaultCapacityType.NODEGROUP })
    .managedNodeGroup({
      id: "gpu",
      instanceTypes: [new ec2.InstanceType("g6.xlarge")],
      amiType: eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
      minSize: 1,
      maxSize: 2,
    })
    .build();
  await blueprints.EksBlueprint.builder()
    .account("123456789012")
    .region("us-west-2")
    .version(eks.KubernetesVersion.V1_35)
    .clusterProvider(clusterProvider)
    .addOns(new DraDriverAddOn())
    .buildAsync(app, "eks-blueprint");
  app.synth();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
