"""The commands that read or act on AWS or a live cluster: preflight, verify, smoke, loadtest, and
the credential check before deploy, diff and destroy; with the Kubernetes and registry clients they use.

Each names the cluster or account it acts on before it acts (``policy.live.kube_context``)."""
