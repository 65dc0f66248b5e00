"""``exporter/gang_exporter/gpus.py``, generated from the instance rows of ``catalog/instances.py``.

The gang exporter's image ships no ``catalog``, so it carries a generated copy of the one fact it
needs per instance family: the GPU model. ``--write`` regenerates the file; without it the command (and a
test) fails when it is stale. The output is deterministic (families in reverse name order, so a family
is listed before any family its name is a prefix of).
"""

from __future__ import annotations

import argparse
import sys

from catalog.instances import INSTANCE_TYPES
from config.load import REPO_ROOT

EXPORTER_GPUS = REPO_ROOT / "exporter" / "gang_exporter" / "gpus.py"

_HEAD = '''"""GPU model catalogue for EC2 instance types (pure, no I/O).

The model is derived from the instance family in the
``node.kubernetes.io/instance-type`` label; the GPU count itself always comes
from the Node's ``status.allocatable`` (see ``state.parse_node``). Model names
match ``catalog.instances.GpuModel`` (the image does not ship ``catalog``; a
test keeps both in step).
"""

from __future__ import annotations

# Instance family (the part before the first ".") -> GPU model.
GPU_MODEL_BY_FAMILY: dict[str, str] = {
'''

_TAIL = '''}

UNKNOWN_MODEL = "unknown"


def instance_family(instance_type: str) -> str:
    """``p5.48xlarge`` -> ``p5``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    return instance_type.split(".", 1)[0].strip().lower()


def gpu_model(instance_type: str) -> str:
    """GPU model for an instance type, ``unknown`` when not catalogued."""
    if not instance_type:
        return UNKNOWN_MODEL
    return GPU_MODEL_BY_FAMILY.get(instance_family(instance_type), UNKNOWN_MODEL)
'''


def gpu_model_by_family() -> dict[str, str]:
    """Instance family -> GPU model, from the GPU rows; a family has one model."""
    models: dict[str, str] = {}
    for row in INSTANCE_TYPES.values():
        model = row.gpu_model
        if model is not None and models.setdefault(row.family, model.value) != model.value:
            raise ValueError(f"instance family {row.family} has two GPU models")
    return dict(sorted(models.items(), reverse=True))


def exporter_gpus_text() -> str:
    rows = "".join(f'    "{family}": "{model}",\n' for family, model in gpu_model_by_family().items())
    return _HEAD + rows + _TAIL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cli.exporter_catalog", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate the file")
    args = parser.parse_args(argv)
    text = exporter_gpus_text()
    shown = EXPORTER_GPUS.relative_to(REPO_ROOT)
    if args.write:
        EXPORTER_GPUS.write_text(text)
        print(f"exporter catalog: wrote {shown}")
        return 0
    if EXPORTER_GPUS.read_text() != text:
        print(f"error: {shown} is stale; fix: run python -m cli.exporter_catalog --write", file=sys.stderr)
        return 1
    print(f"exporter catalog: {shown} is fresh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
