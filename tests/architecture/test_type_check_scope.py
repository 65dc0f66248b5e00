"""The type check keeps full aws_cdk types for every aws_cdk module the code imports.

mypy skips the aws_cdk service modules nothing here imports (pyproject.toml explains the cost);
a module imported without joining the followed list would silently type as Any.
"""

from __future__ import annotations

import ast
import re
import tomllib

from config.load import REPO_ROOT

ROOT = REPO_ROOT


def _mypy_config() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return config


def _followed_aws_cdk_modules() -> set[str]:
    overrides = _mypy_config()["overrides"]
    assert isinstance(overrides, list)
    return {
        module
        for override in overrides
        if override.get("follow_imports") == "normal"
        for module in override["module"]
        if module == "aws_cdk" or module.startswith("aws_cdk.")
    }


def _imported_aws_cdk_modules() -> dict[str, str]:
    """Module -> first file importing it, over the files mypy checks."""
    files, excluded = _mypy_config()["files"], _mypy_config().get("exclude", [])
    assert isinstance(files, list) and isinstance(excluded, list)
    found: dict[str, str] = {}
    paths = [
        p
        for entry in files
        for p in ([ROOT / entry] if entry.endswith(".py") else (ROOT / entry).rglob("*.py"))
        if not any(re.search(pattern, p.relative_to(ROOT).as_posix()) for pattern in excluded)
    ]
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "aws_cdk":
                names = [node.module]
                if node.module == "aws_cdk":  # from aws_cdk import aws_iam: a module; App: a root name
                    names += [f"aws_cdk.{a.name}" for a in node.names if a.name[0].islower()]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split(".")[0] == "aws_cdk"]
            for name in names:
                found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_every_imported_aws_cdk_module_is_type_checked_in_full() -> None:
    imported = _imported_aws_cdk_modules()
    assert "aws_cdk.aws_eks_v2" in imported  # the scan sees the imports at all
    missing = {module: where for module, where in imported.items() if module not in _followed_aws_cdk_modules()}
    assert missing == {}, "add these to the followed aws_cdk modules in pyproject.toml"
