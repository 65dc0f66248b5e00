"""``template: spark``: Spark-like batch, the driver and its executors admitted as one gang.

The CPU-only driver comes on top of ``replicas`` executors, which reach it by name.
"""

from __future__ import annotations

from catalog.launchers import DRIVER_PORT
from config.platform import GangTemplate
from policy.gangs.kinds.base import TemplateKind
from policy.gangs.launch import EnvVar, Launch, leader_address
from policy.gangs.shapes import GangPlan, Role


class Spark(TemplateKind):
    template = GangTemplate.SPARK
    leader = "driver"
    workers = "executors"
    leads_its_gang = False
    unit = "executor"

    def discovery(self, plan: GangPlan) -> str:
        return f"driver `{leader_address(plan)}:{DRIVER_PORT}`"

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        env = (EnvVar("DRIVER_HOST", leader_address(plan)), EnvVar("DRIVER_PORT", str(DRIVER_PORT)))
        return Launch(plan.command, env, ports=(("driver", DRIVER_PORT),))


KIND = Spark()
