"""IAM policy documents, as plain dicts: what ``stacks`` and the add-ons' constructs attach to roles.

``pod_identity``: the trust of every controller role EKS Pod Identity binds; ``documents``: a role an
AWS service assumes, and a policy allowing a few actions on named resources. An add-on's own documents
(Karpenter's controller policies, Cluster Autoscaler's) are in its ``addons/<name>/`` folder. Where an
L2 construct takes ``iam.PolicyStatement`` objects (the CI stack's TTL function, the deletion protection
custom resource), its one statement stays beside it.
"""
