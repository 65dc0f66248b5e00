"""Check: every device a gang requests comes from a DeviceClass some pool serves."""

from __future__ import annotations

from catalog.device_classes import DRIVER_CLASS_NAMES
from config.model import EnvironmentConfig
from policy.checks.objects import CLASSES_BY_NAME, Obj, fail
from policy.gangs.plan import pools_serving
from policy.gates.fields import subject
from policy.infrastructure.device_classes import models_selected
from policy.results import Check


def check_device_classes(env: EnvironmentConfig, objects: list[Obj]) -> list[Check]:
    found = []
    for template in (o for o in objects if o.get("kind") == "ResourceClaimTemplate"):
        for request in template["spec"]["spec"]["devices"]["requests"]:
            name = request.get("exactly", {}).get("deviceClassName", "")
            spec = CLASSES_BY_NAME.get(name)
            if spec is None:
                detail = (
                    "uses the driver's own class"
                    if name in DRIVER_CLASS_NAMES
                    else "uses a DeviceClass the platform does not publish"
                )
                found.append(
                    fail(
                        "device-classes",
                        subject(template),
                        f"{detail} {name!r}",
                        "request a platform DeviceClass (<shape>.gpu-platform.io)",
                    )
                )
            elif not pools_serving(env, spec):
                models = ", ".join(sorted(m.value for m in models_selected(spec))) or "none"
                shape = f"MIG {spec.mig_profile} slices of" if spec.mig_profile else "GPU models"
                fix = (
                    f"add a DRA pool of those GPUs with mig_profile: {spec.mig_profile}"
                    if spec.mig_profile
                    else "add a DRA GPU pool with a matching instance type or use another DeviceClass"
                )
                found.append(
                    fail(
                        "device-classes",
                        subject(template),
                        f"DeviceClass {name} selects {shape} ({models}) that no DRA pool of {env.name} provides; "
                        "claims would never allocate",
                        fix,
                    )
                )
    return found
