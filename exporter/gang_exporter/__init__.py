"""Gang observability exporter: PodGroup scheduling metrics for Prometheus."""

__version__ = "0.1.0"
