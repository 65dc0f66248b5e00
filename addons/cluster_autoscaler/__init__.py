"""Cluster Autoscaler: scales the ``scaling: autoscaled`` managed node groups between their bounds.

- ``pin``: its releases (which runs on which Kubernetes minor), chart and image pins, their sources.
- ``settings``: the ``cluster_autoscaler`` section of an environment file.
- ``plan``: chart values, the IAM policy, the node-template tags of autoscaled node groups.
- ``rules``: the refusals of a release that does not fit the cluster.
- ``construct``: the chart with its Pod Identity role.
"""
