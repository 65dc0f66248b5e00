"""The NVIDIA DRA driver (``dra-driver-nvidia-gpu``) and, for legacy pools, the NVIDIA device plugin.

One folder for both: they share a namespace, a values module and a construct module, and a pool uses one
or the other (``device_management``).

- ``pin``: both charts' and images' pins and their sources.
- ``settings``: the ``dra_driver`` section of an environment file.
- ``values``: both charts' values (the kubelet plugin on DRA pools, the device plugin on the others).
- ``construct``: both Helm releases.
"""
