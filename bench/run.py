"""Synthesis and rendering speed, reported as ratios measured in one run (machines are noisy).

1. cold `make synth`-equivalent of the default environment vs a trivial one-queue CDK app;
2. the YAML-only render of the default environment (wall seconds);
3. rendering 50 / 100 / 200 team run files in one process (linearity);
4. `check` on the default environment (wall seconds), when the command exists.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def _jsii_runtimes() -> int:
    """Running jsii Node.js processes (Linux /proc); 0 elsewhere."""
    count = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            count += b"jsii-runtime" in cmdline.read_bytes()
        except OSError:
            continue
    return count


def wall(*command: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds of one command, started once the previous command's jsii runtime has gone.

    The project's commands return without waiting for the jsii runtime to clean up its
    unpacked packages (it finishes in the background); waiting here keeps that cleanup from
    landing on the next measurement.
    """
    deadline = time.monotonic() + 30
    while _jsii_runtimes() and time.monotonic() < deadline:
        time.sleep(0.05)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env={**os.environ, **(env or {})})
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    has_check = (ROOT / "cli" / "check.py").exists()
    samples: dict[str, list[float]] = {"trivial": [], "synth": [], "render": [], "check": []}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):  # interleaved so drift hits every command alike
            samples["trivial"].append(wall(PY, "bench/trivial_app.py", env={"CDK_OUTDIR": f"{out}/trivial"}))
            samples["synth"].append(wall(PY, "-m", "cli.synth", "--cdk-out", f"{out}/cdk.out", "--dist", f"{out}/d"))
            samples["render"].append(wall(PY, "-m", "cli.render", "--dist", f"{out}/d"))
            if has_check:
                samples["check"].append(wall(PY, "-m", "cli.check"))
    median = {k: statistics.median(v) for k, v in samples.items() if v}
    runs = {
        n: float(
            subprocess.run(
                [PY, "-m", "bench.render_runs", str(n)], cwd=ROOT, check=True, capture_output=True, text=True
            ).stdout
        )
        for n in (50, 100, 200)
    }
    print(f"trivial one-queue app synth  {median['trivial']:6.2f} s   (median of {args.repeat})")
    print(
        f"default environment synth    {median['synth']:6.2f} s   ratio {median['synth'] / median['trivial']:.2f}x"
        "  (target <= 2.0x)"
    )
    print(f"YAML-only render (dev)       {median['render']:6.2f} s   (target <= 1.5 s)")
    if "check" in median:
        print(f"check (dev)                  {median['check']:6.2f} s   (target < 2 s)")
    print(f"render 50 / 100 / 200 runs   {runs[50]:6.2f} / {runs[100]:.2f} / {runs[200]:.2f} s   (target 200 <= 10 s)")
    print(f"per-run cost, 200 vs 50      {(runs[200] / 200) / (runs[50] / 50):6.2f}x  (1.00x = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
