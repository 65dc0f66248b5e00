"""The typed environment model: each file parsed strictly into it once, at the edge.

``config`` checks each field on its own; the cross-field rules that need plans live above it, in
``policy.environment``, whose ``load_environment`` is the one entry point for an environment file.
"""
