"""kube-prometheus-stack: the Prometheus Operator, Prometheus, Alertmanager, Grafana, kube-state-metrics and
node exporter, installed on the system nodes with ``observability.prometheus: install``.

- ``pin``: the chart pin, the images its defaults deploy and their sources.
- ``values``: the chart values (what Prometheus selects, storage, retention, remote write) and the binding
  that lets Prometheus read the scheduler's metrics.
- ``construct``: the chart with the storage it needs (EBS CSI driver, gp3 StorageClass) and the Amazon
  Managed Service for Prometheus workspace.

Its settings are fields of the ``observability`` section (``config/observability.py``: ``prometheus``,
``prometheus_storage_gib``, ``prometheus_retention_days``, ``managed_prometheus``), which it shares with
the gang exporter; the gang alert rules and dashboard are the exporter's (``observability/``).
"""
