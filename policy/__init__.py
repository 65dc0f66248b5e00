"""Platform policy as small pure functions over the parsed configuration: no CDK or cdk8s imports.

Subpackages, one per capability:

- ``environment``: an environment as the platform accepts it: loading, the cross-field rules that
  need plans, team and run files, per-run copies, acknowledged risks.
- ``infrastructure``: plans of the cluster's infrastructure: node groups, EFA, device classes,
  capacity, images, what a change replaces, what must never be pruned (an add-on's own plans and
  values are in its ``addons/<name>/`` folder).
- ``gangs``: what a team's run becomes: the gang plan, how its Pods launch, the API it needs,
  the admission rules.
- ``gates``: rules over the feature-gate registry, and which gates a rendered object needs.
- ``checks``: checks over the rendered platform (``make check``), one module per check.
- ``live``: decisions for live clusters: preflight, verification, smoke test, kubeconfig context.
- ``iam``: IAM policy documents.

``cel`` evaluates Kubernetes CEL; ``results`` is the one result type of checks and live decisions.
"""
