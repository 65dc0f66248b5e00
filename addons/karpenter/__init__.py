"""Karpenter: launches the nodes of ``provider: karpenter`` GPU pools (EC2NodeClass and NodePools per pool).

- ``pin``: its releases (which runs on which Kubernetes minor, which can provision for DRA), chart and image
  pins and their sources, the interruption events it handles, the GPU names it knows.
- ``settings``: the ``karpenter`` section of an environment file and the ``karpenter`` block of a pool.
- ``plan``: chart values, the EC2NodeClass and NodePool objects, the node role's name, per-pool settings.
- ``iam``: the controller's IAM policy documents and the interruption queue's policy.
- ``rules``: the refusals of a release or a pool that Karpenter cannot serve.
- ``construct``: the charts, the controller and node roles, the interruption queue and its rules.
"""
