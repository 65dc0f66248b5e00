"""Tests of the add-on in `addons/efa_device_plugin/`."""
