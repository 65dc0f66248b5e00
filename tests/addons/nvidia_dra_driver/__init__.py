"""Tests of the add-on in `addons/nvidia_dra_driver/`."""
