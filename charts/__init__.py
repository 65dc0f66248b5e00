"""cdk8s charts: the platform-owned Kubernetes objects."""

JSII_MODULES = ("cdk8s_plus_37",)
"""The jsii packages the charts import; their assemblies (and their dependencies') are what a
render loads into jsii's kernel, which a command's early kernel loads ahead (``accelerator.runtime``)."""
