"""The release as a person gets it: one version, a CHANGELOG, licences, size budgets, a fresh install.

The artefacts are the ones ``python -m build`` makes (``dist/``), with a wheelhouse of what a fresh
venv needs (``dist/wheelhouse/``), both made by ``scripts/install.sh --test`` (step "release
artefacts") so that these tests install offline. A fresh venv gets only the built wheel and
``jupyterlab``, serves under a non-root ``base_url``, and opens the demo in Debian's Chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fresh_lab import ROOT, open_demo, served_lab, tool_names

import molspace

DIST = ROOT / "dist"
WHEELHOUSE = DIST / "wheelhouse"
#: Size budgets (bytes). The wheel was 8.0 MB and the sdist 9.2 MB when these were set; a change
#: that crosses one should say why in its commit.
WHEEL_BUDGET = 10 * 2**20
SDIST_BUDGET = 12 * 2**20
TOKEN = "release-test-token"
BASE_URL = "/user/pat/"
VERSION = json.loads((ROOT / "package.json").read_text())["version"]
LABEXT = f"molspace-{VERSION}.data/data/share/jupyter/labextensions/molspace"


def _artefact(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if len(found) != 1 or not WHEELHOUSE.is_dir():
        pytest.fail(
            f"dist/ must hold one {pattern} and dist/wheelhouse/ (found {[p.name for p in found]}): "
            "run `bash scripts/install.sh --test` (step 'release artefacts') to build them"
        )
    return found[0]


@pytest.fixture(scope="module")
def wheel() -> Path:
    return _artefact(f"molspace-{VERSION}-py3-none-any.whl")


@pytest.fixture(scope="module")
def sdist() -> Path:
    return _artefact(f"molspace-{VERSION}.tar.gz")


def _json_in(wheel: Path, name: str) -> dict:
    with zipfile.ZipFile(wheel) as z:
        return json.loads(z.read(name))


def test_one_version_for_the_python_and_npm_packages(wheel: Path) -> None:
    labext = json.loads(
        (Path(molspace.__file__).parent / "labextension" / "package.json").read_text()
    )
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(f"molspace-{VERSION}.dist-info/METADATA").decode()
    in_wheel = _json_in(wheel, f"{LABEXT}/package.json")["version"]
    assert f"\nVersion: {VERSION}\n" in metadata
    assert molspace.__version__ == labext["version"] == in_wheel == VERSION


def test_the_changelog_has_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"\n## {VERSION}" in changelog, f"CHANGELOG.md has no '## {VERSION}' section"


def test_the_wheel_is_within_its_budget_and_ships_every_part(wheel: Path) -> None:
    size = wheel.stat().st_size
    print(f"wheel {size / 2**20:.2f} MiB of {WHEEL_BUDGET / 2**20:.0f} MiB")
    assert size <= WHEEL_BUDGET, f"{wheel.name} is {size} bytes, over the {WHEEL_BUDGET} budget"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for part in [
        f"{LABEXT}/package.json",
        f"{LABEXT}/install.json",
        f"{LABEXT}/static/third-party-licenses.json",
        f"{LABEXT}/static/ketcher/index.html",
        f"{LABEXT}/static/ketcher/depict.html",
        f"{LABEXT}/static/ketcher/third-party-licenses.json",
        f"molspace-{VERSION}.data/data/etc/jupyter/jupyter_server_config.d/molspace.json",
        "molspace/contract/manifest.json",
        "molspace/contract/mvs-schema.json",
    ]:
        assert part in names, f"{wheel.name} lacks {part}"
    assert any(n.startswith("molspace/templates/") for n in names), "no Story templates"
    assert not any("node_modules" in n or n.startswith(("tests/", "ui-tests/")) for n in names)


def test_the_licences_cover_the_ketcher_frame(wheel: Path) -> None:
    lab = _json_in(wheel, f"{LABEXT}/static/third-party-licenses.json")["packages"]
    frame = _json_in(wheel, f"{LABEXT}/static/ketcher/third-party-licenses.json")["packages"]
    listed = {(p["name"], p["versionInfo"]) for p in lab}
    missing = [
        (p["name"], p["versionInfo"]) for p in frame if (p["name"], p["versionInfo"]) not in listed
    ]
    assert not missing, f"JupyterLab's licence report lacks the Ketcher frame's {missing}"
    npm = json.loads((ROOT / "package.json").read_text())
    pinned = {**npm.get("dependencies", {}), **npm.get("devDependencies", {})}
    for name in ["ketcher-core", "ketcher-react", "ketcher-standalone"]:
        record = next((p for p in frame if p["name"] == name), None)
        assert record is not None, f"the Ketcher frame's report lacks {name}"
        assert record["versionInfo"] == pinned[name] and record["licenseId"] == "Apache-2.0", record
    assert all(p["licenseId"] for p in frame), [p["name"] for p in frame if not p["licenseId"]]


def test_the_sdist_builds_the_same_wheel_without_nodejs(
    sdist: Path, wheel: Path, tmp_path: Path
) -> None:
    size = sdist.stat().st_size
    print(f"sdist {size / 2**20:.2f} MiB of {SDIST_BUDGET / 2**20:.0f} MiB")
    assert size <= SDIST_BUDGET, f"{sdist.name} is {size} bytes, over the {SDIST_BUDGET} budget"
    # Only this interpreter's folder on PATH: no node, no npm.
    path = str(Path(sys.executable).parent)
    assert shutil.which("node", path=path) is None and shutil.which("npm", path=path) is None
    env = {
        "HOME": str(tmp_path),
        "PATH": path,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
    }
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(sdist)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (rebuilt,) = tmp_path.glob("molspace-*.whl")
    with zipfile.ZipFile(rebuilt) as a, zipfile.ZipFile(wheel) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())


def test_a_fresh_venv_with_the_wheel_and_jupyterlab_opens_the_demo(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    bin_dir = venv / "bin"
    installed = subprocess.run(
        [
            str(bin_dir / "pip"),
            "install",
            "-q",
            "--no-index",
            "--find-links",
            str(WHEELHOUSE),
            str(wheel),
            "jupyterlab",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    env.pop("PYTHONPATH", None)
    listed = subprocess.run(
        [str(bin_dir / "jupyter"), "labextension", "list"], env=env, capture_output=True, text=True
    )
    assert any(
        "molspace" in line and "enabled" in line and "OK" in line
        for line in (listed.stdout + listed.stderr).splitlines()
    ), listed

    root = tmp_path / "work"
    (root / "data").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "demo.ipynb", root / "demo.ipynb")
    shutil.copy(ROOT / "examples" / "data" / "1cbs-story.mvsx", root / "data" / "1cbs-story.mvsx")
    with served_lab(bin_dir, root, BASE_URL, TOKEN, env, "the fresh venv") as (lab, log):
        assert "story_control" in tool_names(lab, TOKEN)
        open_demo(lab, TOKEN, tmp_path, log, "demo.ipynb")
