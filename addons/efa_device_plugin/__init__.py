"""The EFA device plugin (``aws-efa-k8s-device-plugin``): advertises ``vpc.amazonaws.com/efa`` on EFA pools.

- ``pin``: the chart and image pins, their sources, and the same release in every Region's EKS registry.
- ``plan``: the chart values (EFA pools only, their taints tolerated, the Region's own image).
- ``construct``: the Helm release.

EFA networking itself (interfaces, security group, what gang pods get) is not the plug-in's: it stays in
``policy.infrastructure.efa`` and ``stacks.efa``; the per-instance EFA facts in ``catalog/efa.py``.
"""
