"""Tests of the add-on in `addons/cluster_autoscaler/`."""
