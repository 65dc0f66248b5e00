"""Gang observability: exporter manifests, Prometheus rules and Grafana dashboard."""
