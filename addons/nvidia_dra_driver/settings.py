"""Configuration of the NVIDIA DRA driver: the ``dra_driver`` section of an environment file."""

from __future__ import annotations

from config.model_base import Model


class DraDriverConfig(Model):
    enabled: bool = True
    """Install the ``dra-driver-nvidia-gpu`` chart."""
    compute_domains: bool = False
    """IMEX/NVLink compute domains; only GB200-class systems need them."""
