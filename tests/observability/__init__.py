"""Tests for gang observability: exporter state machine, manifests, rules, dashboard."""
