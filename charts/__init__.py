"""cdk8s charts: the platform-owned Kubernetes objects."""
