"""The longer run of the Python fuzz tests (issue 23): ``tests/fuzz`` with every example count
multiplied and a new seed each run (CI runs them derandomized, at scale 1).

    python bench/fuzz_python.py                 # scale 10, a random seed
    python bench/fuzz_python.py --scale 50 --seed 1234

Prints the seed (pass it back with ``--seed`` to replay a failure) and pytest's durations.
The inputs each boundary checked are asserted by the tests themselves (at least
10,000 x scale at the function level; see docs/security.md, "Generated inputs (fuzzing)").
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=10, help="multiplies every example count")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed (default: random)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    env = {**os.environ, "MOLSPACE_FUZZ_SCALE": str(args.scale), "MOLSPACE_FUZZ_RANDOM": "1"}
    print(f"fuzz: scale {args.scale}, seed {seed}", flush=True)
    started = time.perf_counter()
    code = subprocess.call(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--hypothesis-seed={seed}",
            "--durations=10",
            "tests/fuzz",
        ],
        cwd=ROOT,
        env=env,
    )
    print(f"fuzz: {time.perf_counter() - started:.0f} s, exit {code} (seed {seed})")
    return code


if __name__ == "__main__":
    sys.exit(main())
