"""Delete this function's own stack once it is older than its time to live.

Shipped inline by stacks/stack_ttl.py and run every 15 minutes. The clock starts at
the stack's CreationTime. DeleteStack reuses the role the stack was deployed with.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from typing import Any

DELETE, KEEP, BUSY = "delete", "keep", "busy"


def decide(*, status: str, created: datetime, now: datetime, ttl_hours: float) -> str:
    """delete (expired), keep (younger than its TTL) or busy (an operation is running)."""
    if status.endswith("_IN_PROGRESS"):
        return BUSY
    if now - created < timedelta(hours=ttl_hours):
        return KEEP
    return DELETE


def handler(event: Any, context: Any, client: Any = None) -> dict[str, str]:
    if client is None:
        import boto3

        client = boto3.client("cloudformation")
    stack_id = os.environ["STACK_ID"]
    stack = client.describe_stacks(StackName=stack_id)["Stacks"][0]
    action = decide(
        status=stack["StackStatus"],
        created=stack["CreationTime"],
        now=datetime.now(UTC),
        ttl_hours=float(os.environ["TTL_HOURS"]),
    )
    if action == DELETE:
        client.delete_stack(StackName=stack_id)
    result = {"stack": stack_id, "status": str(stack["StackStatus"]), "action": action}
    print(json.dumps(result))
    return result
