"""SUMMARY.md: what a reviewer needs to see at a glance next to the YAML."""

from __future__ import annotations

from collections.abc import Sequence

from addons.karpenter.settings import KarpenterPoolConfig
from catalog.device_classes import DEVICE_CLASSES
from catalog.instances import INSTANCE_TYPES
from catalog.prices import ON_DEMAND_USD_PER_HOUR
from catalog.prices import SOURCE as PRICE_SOURCE
from catalog.priority_tiers import TIERS, PreemptionPolicy
from config.model import EnvironmentConfig
from policy.gangs.kinds import kind_of
from policy.gangs.launch import ssh_secret_name
from policy.gangs.plan import FALLBACK_LOSES, pools_serving
from policy.gangs.shapes import GangPlan, Role
from policy.gates.rules import gang_scheduling_native, served_beyond_eks
from policy.infrastructure.capacity import PodShape, cluster_pod_capacity, zone_pod_capacity
from policy.infrastructure.device_classes import selector_expression
from policy.infrastructure.efa import efa_placement
from policy.infrastructure.node_pools import (
    efa_interfaces_per_node,
    max_nodes_in_zone,
    placement_group_enabled,
    pool_scaling,
    reachable_nodes_in_zone,
    static_nodes,
    static_nodes_in_zone,
)


def _tier_namespaces(env: EnvironmentConfig) -> dict[str, list[str]]:
    allowed: dict[str, list[str]] = {t.value: [] for t in TIERS}
    for team in env.platform.teams.values():
        for tier in team.tiers:
            allowed[tier.value].append(team.namespace)
    allowed["critical"] += list(env.platform.platform_namespaces)
    return {t: sorted(set(ns)) for t, ns in allowed.items()}


def _mermaid(plan: GangPlan) -> list[str]:
    root = f"{plan.workload_name}-gang"
    lines = ["```mermaid", "graph TD", f'  root["CompositePodGroup {root}<br/>gang minGroupCount={len(plan.groups)}"]']
    for group in plan.groups:
        policy = f"gang minCount={group.min_count}" if group.min_count is not None else "basic"
        roles = ", ".join(f"{r.replicas}x {r.name}" for r in group.roles)
        lines.append(f'  root --> {group.name}["PodGroup {plan.workload_name}-{group.name}<br/>{policy}<br/>{roles}"]')
    lines.append("```")
    return lines


_DEFAULT_KARPENTER = KarpenterPoolConfig()


def _pool_lines(env: EnvironmentConfig) -> list[str]:
    """One row per GPU pool: how its nodes come into being and what each node brings."""
    lines = [
        "## GPU pools",
        "",
        _cost_line(env),
        "",
        "Nodes per zone: existing before a gang arrives / able to come to exist for pods that do not preempt / "
        "`max_size` "
        "(see `make check`'s capacity check).",
        "",
        "| pool | provider | scaling | zones | nodes per zone | instance types | GPUs per node | EFA per node | "
        "placement group |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pool in env.gpu_pools:
        scaling = pool_scaling(pool)
        mode = (
            scaling.value if scaling is not None else f"karpenter {(pool.karpenter or _DEFAULT_KARPENTER).mode.value}"
        )
        nodes = ", ".join(
            f"{zone}: {static_nodes_in_zone(pool, zone)}/{reachable_nodes_in_zone(env, pool, zone)}/"
            f"{max_nodes_in_zone(pool, zone)}"
            for zone in pool.zones
        )
        gpus = sorted({INSTANCE_TYPES[t].gpus for t in pool.instance_types})
        lines.append(
            f"| {pool.name} | {pool.provider.value} | {mode} | {len(pool.zones)}"
            f"{'' if pool.zone_pinned else ' (one group)'} | {nodes} | {', '.join(pool.instance_types)} | "
            f"{'/'.join(str(g) for g in gpus)} | {efa_interfaces_per_node(pool) or '—'} | "
            f"{'yes' if placement_group_enabled(pool) else '—'} |"
        )
    return [*lines, ""]


def _control_plane_lines(env: EnvironmentConfig) -> list[str]:
    """What the control plane is taken to serve, and so which gang form every run below has."""
    gates = env.feature_gates
    beyond = served_beyond_eks(gates.control_plane)
    lines = ["## Control plane", ""]
    if gang_scheduling_native(gates.control_plane):
        lines.append("Gang form: native (Workload and PodGroups; GenericWorkload is on).")
    else:
        lines.append(
            "Gang form: fallback. EKS 1.37 does not serve GenericWorkload (`catalog/eks_control_plane.py`), so no "
            f"run has a Workload or PodGroup: {FALLBACK_LOSES}."
        )
    if beyond:
        lines.append(
            f"Acknowledged as served beyond EKS 1.37 (`feature_gates.acknowledge_served_beyond_eks`): "
            f"{', '.join(beyond)}. `make verify` checks them on the live cluster."
        )
    else:
        lines.append("Relies on nothing beyond what EKS 1.37 serves.")
    return [*lines, ""]


def always_on_cost(env: EnvironmentConfig) -> tuple[int, float, tuple[str, ...]]:
    """GPU nodes that run before any gang arrives, their hourly on-demand price at each pool's cheapest
    listed type, and the types the price table has no row for (left out of the price)."""
    nodes, price = 0, 0.0
    unpriced: set[str] = set()
    for pool in env.gpu_pools:
        count = static_nodes(pool)
        if not count:
            continue
        nodes += count
        known = [ON_DEMAND_USD_PER_HOUR[t] for t in pool.instance_types if t in ON_DEMAND_USD_PER_HOUR]
        if known:
            price += count * min(known)
        else:
            unpriced.update(pool.instance_types)
    return nodes, price, tuple(sorted(unpriced))


def _cost_line(env: EnvironmentConfig) -> str:
    nodes, price, unpriced = always_on_cost(env)
    missing = f"; no price for {', '.join(unpriced)}" if unpriced else ""
    return (
        f"Always-on GPU nodes: {nodes}, about ${price:,.2f} an hour on demand at each pool's cheapest listed type "
        f"(`catalog/prices.py`: {PRICE_SOURCE}{missing})."
    )


def _efa_lines(env: EnvironmentConfig, plans: list[GangPlan]) -> list[str]:
    """What each run's GPU pods get on EFA pools, and the pools a run is pinned to when its serving pools
    differ in what a pod would get there (``policy.infrastructure.efa.efa_placement``)."""
    rows = []
    for plan in plans:
        gpu_role = next((r for r in plan.roles if r.gpus), None)
        if gpu_role is None:
            continue
        settings = plan.efa_for(gpu_role.name)
        if settings is None:
            continue
        placement = efa_placement(pools_serving(env, plan.device_class), gpus=gpu_role.gpus)
        where = "any serving pool"
        if plan.pools:
            others = ", ".join(f"{name}: {s.efa_devices if s else 0} EFA" for name, s in placement.left_out)
            where = f"pinned to {', '.join(plan.pools)} (not {others})"
        rdma = "yes" if ("FI_EFA_USE_DEVICE_RDMA", "1") in settings.env else "no"
        rows.append(
            f"| {plan.team} | {plan.run} | {where} | {settings.efa_devices} | {settings.hugepages_mib}Mi | {rdma} |"
        )
    if not rows:
        return []
    return [
        "",
        "## EFA per run",
        "",
        "Requests = limits per GPU Pod; a run whose pools differ in what a Pod gets keeps to one kind of pool.",
        "",
        "| team | run | pools | `vpc.amazonaws.com/efa` | `hugepages-2Mi` | GPUDirect RDMA |",
        "|---|---|---|---|---|---|",
        *rows,
    ]


def _gpu_zones(env: EnvironmentConfig, plan: GangPlan) -> str:
    """Where the gang's GPU Pods can land: with a topology constraint, each zone that can hold all of
    them at once (the nodes that exist or can come to exist, as ``make check`` counts); else the
    zones of the pools serving its DeviceClass, when the cluster can hold them."""
    gpu_roles = [r for r in plan.roles if r.gpus > 0]
    if not gpu_roles:
        return "—"
    largest = max(gpu_roles, key=lambda r: (r.gpus, r.cpu, r.memory_gib))
    pod = PodShape(devices=largest.gpus, cpu=largest.cpu, memory_gib=largest.memory_gib)
    needed = sum(r.replicas for r in gpu_roles)
    preempting = plan.tier.preemption_policy is PreemptionPolicy.PREEMPT_LOWER_PRIORITY
    if plan.topology_key or plan.zone_affinity_key:
        by_zone = zone_pod_capacity(env, plan.device_class, pod, preempting_pods=preempting)
        zones = sorted(z for z, held in by_zone.items() if held >= needed)
        if not zones:
            return "none holds the whole gang (see `make check`)"
        return zones[0] if len(zones) == 1 else f"one of {', '.join(zones)}"
    zones = sorted({z for p in pools_serving(env, plan.device_class) for z in p.zones})
    if cluster_pod_capacity(env, plan.device_class, pod, preempting_pods=preempting) < needed:
        return "the cluster cannot hold the whole gang (see `make check`)"
    return f"spread over {', '.join(zones)}"


def _role_pool(env: EnvironmentConfig, plan: GangPlan, role: Role) -> str:
    if role.gpus == 0:
        return "system nodes (`system_nodes`: no GPU, no taint)"
    return ", ".join(f"`{p.name}`" for p in pools_serving(env, plan.device_class)) or "—"


def _role_zones(plan: GangPlan, role: Role, gpu_zones: str) -> str:
    if role.gpus > 0:
        return gpu_zones
    return "the gang's zone (any zone of the system nodes)" if plan.topology_key else "any zone of the system nodes"


def _role_lines(env: EnvironmentConfig, plans: Sequence[GangPlan]) -> list[str]:
    """One row per role of each run: its Pods, GPUs per Pod (0 for a CPU-only launcher or driver),
    and the pool and zones it can land in."""
    lines = [
        "",
        "## Roles",
        "",
        "Where each role's Pods land: the GPU pools serving the run's DeviceClass (nodes that exist or can come "
        "to exist, as `make check` counts), and the zones that can hold the whole gang.",
        "",
        "| team | run | role | Pods | GPUs per Pod | CPU / memory per Pod | pool | zone(s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for plan in plans:
        gpu_zones = _gpu_zones(env, plan)
        for role in plan.roles:
            lines.append(
                f"| {plan.team} | {plan.run} | {role.name} | {role.replicas} | {role.gpus} | "
                f"{role.cpu} / {role.memory_gib}Gi | {_role_pool(env, plan, role)} | "
                f"{_role_zones(plan, role, gpu_zones)} |"
            )
    return lines


def _apply_first(plan: GangPlan) -> list[str]:
    """What must exist in the cluster before the run's file is applied, and how to make it."""
    needs = []
    if kind_of(plan).needs_ssh_key:
        needs.append(
            f"Secret `{ssh_secret_name(plan)}` (the run's SSH keys): "
            f"`make mpi-ssh-key RUN={plan.team}/{plan.run} \\| kubectl apply -f -`"
        )
    if plan.checkpoint is not None:
        claim, _ = plan.checkpoint
        needs.append(f"PersistentVolumeClaim `{claim}` in `{plan.namespace}` (the team's checkpoint volume)")
    return needs


def _apply_first_lines(plans: Sequence[GangPlan]) -> list[str]:
    lines = ["", "## Apply first", ""]
    rows = [(plan, need) for plan in plans for need in _apply_first(plan)]
    if not rows:
        return [*lines, "Nothing: every run's file applies on its own (`kubectl apply -f dist/<env>/teams/...`)."]
    lines += [
        "Create these before `kubectl apply -f` of the run's file; its Pods wait for them.",
        "",
        "| team | run | apply first |",
        "|---|---|---|",
    ]
    lines += [f"| {plan.team} | {plan.run} | {need} |" for plan, need in rows]
    return lines


def summary_markdown(env: EnvironmentConfig, plans: list[GangPlan], *, notes: Sequence[str] = ()) -> str:
    allowed = _tier_namespaces(env)
    lines = [
        f"# Platform objects: {env.name}",
        "",
        "Generated by `make render`; do not edit. Objects are applied in sync-wave order:",
        "PriorityClass and DeviceClass, Workload, CompositePodGroups top-down, PodGroup, then Pods.",
        "",
        "## Priority tiers",
        "",
        "| tier | PriorityClass | value | preemption | disruption | global default | namespaces |",
        "|---|---|---|---|---|---|---|",
    ]
    lines = [*lines[:5], *_control_plane_lines(env), *lines[5:]]
    for tier, spec in TIERS.items():
        namespaces = ", ".join(allowed[tier.value]) or "—"
        default = "yes" if env.platform.default_tier is tier else ""
        lines.append(
            f"| {tier.value} | `{spec.priority_class}` | {spec.value} | {spec.preemption_policy.value} | "
            f"{spec.disruption_mode.value} | {default} | {namespaces} |"
        )
    lines += ["", *_pool_lines(env), "## Device classes", "", "| DeviceClass | selects | CEL |", "|---|---|---|"]
    for shape in sorted(set(env.platform.device_classes)):
        device_class = DEVICE_CLASSES[shape]
        expression = selector_expression(device_class).replace("\n", " ")
        lines.append(f"| `{device_class.name}` | {device_class.description} | `{expression}` |")
    lines += ["", "## Gang runs", ""]
    if not plans:
        lines.append("No team runs in this environment.")
    else:
        lines += [
            "| team | run | Workload | template | form | groups (minCount) | priority | topology | devices |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for plan in plans:
            groups = ", ".join(
                f"{g.name} ({g.min_count if g.min_count is not None else 'basic'}/{g.replicas})" for g in plan.groups
            )
            if not plan.native:
                groups = "— (no PodGroup)"
            topology = plan.topology_key or (
                f"{plan.zone_affinity_key} (Pod affinity)" if plan.zone_affinity_key else "—"
            )
            lines.append(
                f"| {plan.team} | {plan.run} | `{plan.workload_name}` | {plan.template.value} | {plan.variant} | "
                f"{groups} | `{plan.tier.priority_class}` | {topology} | "
                f"{plan.total_gpus}x `{plan.device_class.name}` |"
            )
        lines += ["", "What each gang gets on this cluster:", ""]
        lines += [f"- {plan.team}/{plan.run}: {plan.gang_form}" for plan in plans]
    if plans:
        lines += [
            "",
            "## Launch",
            "",
            "| team | run | processes per Pod | world size | how the Pods find each other |",
            "|---|---|---|---|---|",
        ]
        for plan in plans:
            kind = kind_of(plan)
            lines.append(
                f"| {plan.team} | {plan.run} | {plan.processes_per_pod} | {kind.world_size(plan)} | "
                f"{kind.discovery(plan)} |"
            )
        lines += _role_lines(env, plans)
        lines += _apply_first_lines(plans)
    lines += _efa_lines(env, plans)
    if notes:
        lines += [
            "",
            "## Settings not honoured",
            "",
            "Rendered without them (a `warning:` line at synth and render):",
            "",
        ]
        lines += [f"- {note}" for note in notes]
    composites = [p for p in plans if p.composite]
    if composites:
        lines += ["", "## Composite trees"]
        for plan in composites:
            lines += ["", f"### {plan.team}/{plan.run}", "", *_mermaid(plan)]
    return "\n".join(lines) + "\n"
