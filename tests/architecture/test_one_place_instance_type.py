"""Adding a GPU instance type is one row of ``catalog/instances.py`` (plus its generated exporter copy).

In a copy of the tree: add a row, regenerate the exporter's copy, and check that the new type is
known to everything that asks about instance types (EFA, prices, quotas, the exporter, config
validation, node-group plans), and that no other file changed.
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COPIED = ("catalog", "config", "policy", "cli", "exporter", "environments", "observability", "charts", "addons")
ANCHOR = '    _gpu("p6-b200.48xlarge",'
NEW_ROW = '    _gpu("p9.48xlarge",       192, 2048, 8, GpuModel.H100_80GB,  Efa(32, 32), True,  99.5),\n'

PROBE = """
import yaml
from catalog.efa import EFA_SUPPORT
from catalog.instances import GPU_FAMILIES, INSTANCE_TYPES
from catalog.prices import ON_DEMAND_USD_PER_HOUR
from catalog.quotas import Market, vcpu_quota
from exporter.gang_exporter import gpus
from policy.environment.load import parse_environment
from policy.infrastructure.node_pools import efa_interfaces_per_node, node_group_plans

row = INSTANCE_TYPES["p9.48xlarge"]
assert row.gpus == 8 and "p9" in GPU_FAMILIES
assert EFA_SUPPORT["p9.48xlarge"].efa_interfaces == 32
assert ON_DEMAND_USD_PER_HOUR["p9.48xlarge"] == 99.5
assert vcpu_quota(row.family, Market.ON_DEMAND).code == "L-417A185B"
assert gpus.gpu_model("p9.48xlarge") == "H100-80GB"
data = yaml.safe_load(open("environments/prod-example.yaml"))
pool = next(p for p in data["gpu_pools"] if "p5.48xlarge" in p["instance_types"])
pool["instance_types"] = ["p9.48xlarge"]
env = parse_environment(data)
(parsed,) = [p for p in env.gpu_pools if p.name == pool["name"]]
assert efa_interfaces_per_node(parsed) == 32
assert node_group_plans(parsed, cluster_name=env.cluster.name)
print("p9.48xlarge known everywhere")
"""


def _tree_files(root: Path) -> dict[str, Path]:
    return {
        str(p.relative_to(root)): p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_a_gpu_instance_type_is_one_row(tmp_path: Path) -> None:
    for folder in COPIED:
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    before = {name: path.read_bytes() for name, path in _tree_files(tmp_path).items()}

    instances = tmp_path / "catalog" / "instances.py"
    text = instances.read_text()
    assert ANCHOR in text
    instances.write_text(text.replace(ANCHOR, NEW_ROW + ANCHOR, 1))
    subprocess.run([sys.executable, "-m", "cli.exporter_catalog", "--write"], cwd=tmp_path, check=True)

    after = _tree_files(tmp_path)
    changed = sorted(name for name, path in after.items() if before.get(name) != path.read_bytes())
    assert changed == ["catalog/instances.py", "exporter/gang_exporter/gpus.py"]
    assert set(after) == set(before)  # no file added or removed

    probe = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert probe.returncode == 0, probe.stderr
    assert "p9.48xlarge known everywhere" in probe.stdout


def test_the_exporter_copy_is_generated_from_the_rows() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli.exporter_catalog"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "is fresh" in result.stdout


def test_a_stale_exporter_copy_is_refused_with_the_fix(tmp_path: Path) -> None:
    for folder in ("catalog", "config", "cli", "exporter", "addons"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    copy = tmp_path / "exporter" / "gang_exporter" / "gpus.py"
    copy.write_text(copy.read_text().replace('    "g5": "A10G",\n', ""))
    assert not filecmp.cmp(copy, REPO / "exporter" / "gang_exporter" / "gpus.py", shallow=False)
    result = subprocess.run(
        [sys.executable, "-m", "cli.exporter_catalog"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: exporter/gang_exporter/gpus.py is stale; fix: run python -m cli.exporter_catalog --write"
    )
