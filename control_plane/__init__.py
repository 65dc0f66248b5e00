"""A local Kubernetes 1.37 control plane built from upstream sources, for tests and for people.

``pins`` holds what is built (versions as data, with where each was checked), ``build`` turns the
pins into binaries in a cache outside the repository, ``configs`` holds the two configurations
(EKS as AWS runs it, and workload-aware), ``run`` starts and stops one control plane on loopback.
``python -m control_plane`` (``make control-plane``) is the command.
"""

from control_plane.errors import ControlPlaneError

__all__ = ["ControlPlaneError"]
