"""``template: pytorch``: distributed PyTorch, ``replicas`` Pods running torchrun, all started together or not at all.

Flat form: one gang of rank 0 (the coordinator Pod) + workers. Hierarchical form (``CompositePodGroup``
on): a composite gang of the coordinator group and the workers group. Job form (``WorkloadWithJob`` on,
``job: true``): one indexed Job whose index 0 is rank 0.

torchrun runs on every Pod with a c10d rendezvous on rank 0's name and a fixed port. A failed rank ends
its Pod (``--max-restarts=0``, ``restartPolicy: Never``); its peers' collectives fail and so do they: the
run fails as a whole and is resubmitted, because a synchronous job cannot continue with a missing rank.
The Job form (``backoffLimit: 0``) makes the Job controller terminate the survivors at once.
"""

from __future__ import annotations

from catalog.launchers import MAX_RESTARTS, RENDEZVOUS_PORT, TORCHRUN, TORCHRUN_OWNED_FLAGS
from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig
from config.validate_launch import owned_flags
from policy.gangs.kinds.base import TemplateKind
from policy.gangs.launch import JOB_INDEX_LABEL, RANK_LABEL, EnvVar, Launch, gang_pods, leader_address
from policy.gangs.shapes import GangPlan, Role


class PyTorch(TemplateKind):
    template = GangTemplate.PYTORCH
    leader = "coordinator"
    workers = "workers"
    leads_its_gang = True
    unit = "Pod"
    reads = frozenset({"processes_per_pod"})
    indexed_job = True

    def check_run(self, run: RunConfig, *, name: str) -> None:
        if run.processes_per_pod is not None and run.gpus_per_replica and run.processes_per_pod != run.gpus_per_replica:
            raise ConfigError(
                "processes_per_pod",
                run.processes_per_pod,
                f"torchrun starts one process per GPU and each Pod claims {run.gpus_per_replica} GPUs",
                f"set processes_per_pod: {run.gpus_per_replica} or drop it, or change gpus_per_replica",
            )
        if not run.command:
            raise ConfigError(
                "command",
                [],
                "a pytorch run names its training script (the platform wraps it in torchrun)",
                "set command: [train.py, <arguments>]",
            )
        if run.command[0].rsplit("/", 1)[-1] in ("python", "python3"):
            raise ConfigError(
                "command",
                list(run.command),
                "torchrun starts the Python interpreter itself; it would run 'python' as the script",
                "drop the interpreter: [train.py, <arguments>] or [-m, package.module]",
            )
        owned = owned_flags(run.command, TORCHRUN_OWNED_FLAGS)
        if run.command[0] == TORCHRUN or "torch.distributed.run" in run.command or owned:
            raise ConfigError(
                "command",
                list(run.command),
                "the pytorch template runs torchrun and sets --nnodes, --nproc-per-node, --node-rank and the "
                f"rendezvous itself{f' (found {owned[0]})' if owned else ''}",
                "give only the script and its arguments, e.g. [train.py, --config=c.yaml]",
            )

    def world_size(self, plan: GangPlan) -> int:
        """Every Pod's processes."""
        return gang_pods(plan) * plan.processes_per_pod

    def discovery(self, plan: GangPlan) -> str:
        return f"c10d rendezvous `{leader_address(plan)}:{RENDEZVOUS_PORT}`"

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        pods = gang_pods(plan)
        group = plan.groups[-1]
        minimum = pods if group.min_count is None else group.min_count + (pods - group.replicas)
        nnodes = f"{minimum}:{pods}" if plan.elastic and minimum < pods else str(pods)
        env = [
            EnvVar("NODE_RANK", field_path=f"metadata.labels['{JOB_INDEX_LABEL if plan.job else RANK_LABEL}']"),
            EnvVar("NNODES", nnodes),
            EnvVar("NPROC_PER_NODE", str(plan.processes_per_pod)),
            EnvVar("MASTER_ADDR", leader_address(plan)),
            EnvVar("MASTER_PORT", str(RENDEZVOUS_PORT)),
            EnvVar("RDZV_ID", plan.workload_name),
        ]
        if ":" not in nnodes:  # an elastic world's size is only known once the rendezvous closes
            env.append(EnvVar("WORLD_SIZE", str(self.world_size(plan))))
        command = (
            TORCHRUN,
            "--nnodes=$(NNODES)",
            "--nproc-per-node=$(NPROC_PER_NODE)",
            "--node-rank=$(NODE_RANK)",
            "--rdzv-backend=c10d",
            "--rdzv-endpoint=$(MASTER_ADDR):$(MASTER_PORT)",
            "--rdzv-id=$(RDZV_ID)",
            f"--max-restarts={MAX_RESTARTS}",
            *plan.command,
        )
        return Launch(command, tuple(env), ports=(("rendezvous", RENDEZVOUS_PORT),))


KIND = PyTorch()
