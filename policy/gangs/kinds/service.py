"""``template: service``: a long-running multi-Pod service, StatefulSets of leader + workers placed and
disrupted as a whole.

The leader is ready only once every worker is: a second headless Service lists ready workers only, and
the leader's readiness check counts them before it runs the Pod's own.
"""

from __future__ import annotations

from catalog.launchers import CLUSTER_DOMAIN
from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig
from policy.gangs.kinds.base import PodController, TemplateKind
from policy.gangs.launch import (
    LABEL_VALUE_LIMIT,
    STATEFULSET_NAME_LIMIT,
    EnvVar,
    GeneratedName,
    HeadlessService,
    Launch,
    Probe,
    leader_address,
    worker_addresses,
)
from policy.gangs.shapes import GangPlan, Role

SERVICE_RUN_NAME_MAX_LENGTH = STATEFULSET_NAME_LIMIT - len("-12345678-leader")
"""Service StatefulSets are named ``<run>-<digest>-<role>``."""

_GROUP_READY = (
    'ready=$(getent ahosts "$READY_WORKERS" | cut -d" " -f1 | sort -u | wc -l)\n'
    '[ "$ready" -ge "$WORKERS" ] && exec "$@"'
)


def ready_service_name(plan: GangPlan) -> str:
    """A second headless Service listing only ready workers."""
    return f"{plan.workload_name}-ready"


class Service(TemplateKind):
    template = GangTemplate.SERVICE
    leader = "leader"
    workers = "workers"
    leads_its_gang = True
    unit = "Pod"
    reads = frozenset({"readiness_command"})
    pod_controller = PodController.STATEFUL_SETS

    def check_run(self, run: RunConfig, *, name: str) -> None:
        if not run.readiness_command:
            raise ConfigError(
                "readiness_command",
                [],
                "a service is only ready when every Pod is; the template needs each Pod's readiness check",
                "set readiness_command, e.g. [curl, -fsS, http://127.0.0.1:8080/ready]",
            )
        if len(name) > SERVICE_RUN_NAME_MAX_LENGTH:
            raise ConfigError(
                "<file name>",
                name,
                f"a service run names StatefulSets <run>-<digest>-<role>, which stop at {STATEFULSET_NAME_LIMIT} "
                "characters",
                f"rename the file to at most {SERVICE_RUN_NAME_MAX_LENGTH} characters",
            )

    def discovery(self, plan: GangPlan) -> str:
        return f"leader `{leader_address(plan)}`, ready when Service `{ready_service_name(plan)}` lists every worker"

    def services(self, plan: GangPlan) -> tuple[HeadlessService, ...]:
        if len(plan.roles) < 2:
            return ()
        return (HeadlessService(ready_service_name(plan), plan.roles[-1].name, publish_not_ready=False),)

    def own_names(self, plan: GangPlan) -> list[GeneratedName]:
        return [GeneratedName("ready Service name", ready_service_name(plan), LABEL_VALUE_LIMIT)]

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        own = plan.readiness_command
        if role is not plan.roles[0]:
            return Launch(plan.command, readiness=Probe(own))
        env = (
            EnvVar("WORKERS", str(len(worker_addresses(plan)))),
            EnvVar("READY_WORKERS", f"{ready_service_name(plan)}.{plan.namespace}.svc.{CLUSTER_DOMAIN}"),
        )
        return Launch(plan.command, env, readiness=Probe(("sh", "-c", _GROUP_READY, "group-ready", *own)))


KIND = Service()
