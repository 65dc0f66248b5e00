"""Tests of the add-on in `addons/kube_prometheus_stack/`."""
