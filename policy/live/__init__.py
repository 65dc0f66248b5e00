"""Decisions for live clusters: preflight, post-deploy verification, the smoke test, the kubeconfig context.

No API calls here: ``cli`` fetches, these functions decide over the payloads.
"""
