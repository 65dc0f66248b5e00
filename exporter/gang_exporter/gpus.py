"""GPU model catalogue for EC2 instance types (pure, no I/O).

The model is derived from the instance family in the
``node.kubernetes.io/instance-type`` label; the GPU count itself always comes
from the Node's ``status.allocatable`` (see ``state.parse_node``). Model names
match ``catalog.instances.GpuModel`` (the image does not ship ``catalog``; a
test keeps both in step).
"""

from __future__ import annotations

# Instance family (the part before the first ".") -> GPU model.
GPU_MODEL_BY_FAMILY: dict[str, str] = {
    "p6-b200": "B200",
    "p5en": "H200",
    "p5e": "H200",
    "p5": "H100-80GB",
    "p4de": "A100-80GB",
    "p4d": "A100-40GB",
    "g6e": "L40S",
    "g6": "L4",
    "g5": "A10G",
}

UNKNOWN_MODEL = "unknown"


def instance_family(instance_type: str) -> str:
    """``p5.48xlarge`` -> ``p5``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    return instance_type.split(".", 1)[0].strip().lower()


def gpu_model(instance_type: str) -> str:
    """GPU model for an instance type, ``unknown`` when not catalogued."""
    if not instance_type:
        return UNKNOWN_MODEL
    return GPU_MODEL_BY_FAMILY.get(instance_family(instance_type), UNKNOWN_MODEL)
