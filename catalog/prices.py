"""On-demand hourly prices of the GPU instance types, for SUMMARY.md's always-on cost line.

Source: the Amazon EC2 On-Demand pricing page (Linux, us-east-1 and us-west-2 list the same price
for these types), as last read on ``READ``, after the June 2025 P4/P5 price reduction. No pricing
API is reachable where the kit is built, so the rows are **assumed** until someone reads them
again: ``CHECKED`` is the date the table was last compared with that page. A summary line that
uses them says so. Spot and Capacity Block prices differ (Capacity Blocks are paid up front).
"""

from __future__ import annotations

SOURCE = "Amazon EC2 On-Demand pricing (Linux, us-east-1/us-west-2), read 2025-06; not re-checked 2026-12-03"
READ = "2025-06"
CHECKED = "2026-12-03"

ON_DEMAND_USD_PER_HOUR: dict[str, float] = {
    "g6.xlarge": 0.8048,
    "g6.2xlarge": 0.9776,
    "g6.12xlarge": 4.6016,
    "g6.24xlarge": 6.6752,
    "g6e.12xlarge": 10.4926,
    "g6e.24xlarge": 15.0656,
    "g6e.48xlarge": 30.1311,
    "p4d.24xlarge": 19.2197,
    "p5.48xlarge": 55.04,
    "p5en.48xlarge": 63.2968,
    "p6-b200.48xlarge": 113.9328,
}
"""USD per instance-hour, on demand."""
