"""Where the on-demand prices of the GPU instance types come from (the prices are a column of
``catalog/instances.py``), for SUMMARY.md's always-on cost line.

Source: the Amazon EC2 On-Demand pricing page (Linux, us-east-1 and us-west-2 list the same price
for these types), as last read on ``READ``, after the June 2025 P4/P5 price reduction. No pricing
API is reachable where the kit is built, so the rows are **assumed** until someone reads them
again: ``CHECKED`` is the date the table was last compared with that page. A summary line that
uses them says so. Spot and Capacity Block prices differ (Capacity Blocks are paid up front).
"""

from __future__ import annotations

from catalog.instances import ON_DEMAND_USD_PER_HOUR

__all__ = ["CHECKED", "ON_DEMAND_USD_PER_HOUR", "READ", "SOURCE"]

SOURCE = "Amazon EC2 On-Demand pricing (Linux, us-east-1/us-west-2), read 2025-06; not re-checked 2026-12-03"
READ = "2025-06"
CHECKED = "2026-12-03"
