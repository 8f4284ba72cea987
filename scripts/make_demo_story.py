"""Build the demo Story `examples/data/1cbs-story.mvsx` from the committed 1CBS mmCIF.

Uses the `molviewspec` Python builder and its MVSX writer, so the archive is
standard MVS: index.mvsj plus 1cbs.cif, referenced by a relative URL (no
network needed to play it). Run: `python scripts/make_demo_story.py`.
"""

from __future__ import annotations

from pathlib import Path

import molviewspec as mvs
from molviewspec import create_builder

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"

# Retinoic acid (REA) sits in chain A's beta-barrel pocket; Arg111, Arg132 and
# Tyr134 hold its carboxylate (auth_seq_id numbering of the 1CBS entry).
POCKET = [{"label_asym_id": "A", "auth_seq_id": n} for n in (111, 132, 134)]


def structure(builder):
    return builder.download(url="1cbs.cif").parse(format="mmcif").model_structure()


def overview():
    b = create_builder()
    s = structure(b)
    polymer = s.component(selector="polymer")
    polymer.representation(type="cartoon").color(color="#4a7fb5")
    polymer.focus()
    s.component(selector="ligand").representation(type="ball_and_stick").color(color="#e0552d")
    return b.get_snapshot(
        key="overview",
        title="Overview",
        description="**CRABP2 (PDB 1CBS)** with all-*trans* retinoic acid bound inside its beta barrel.",
        linger_duration_ms=4000,
        transition_duration_ms=800,
    )


def binding_site():
    b = create_builder()
    s = structure(b)
    s.component(selector="polymer").representation(type="cartoon").color(color="#b8c7d9")
    pocket = s.component(selector=POCKET)
    pocket.representation(type="ball_and_stick").color(color="#2a9d8f")
    pocket.label(text="Arg111 / Arg132 / Tyr134")
    s.component(selector="ligand").representation(type="ball_and_stick").color(color="#e0552d")
    s.component(selector="ligand").focus(radius_extent=7)
    return b.get_snapshot(
        key="binding-site",
        title="Binding site",
        description="Arg111, Arg132 and Tyr134 line the pocket and hold the ligand's carboxylate.",
        linger_duration_ms=5000,
        transition_duration_ms=800,
    )


def ligand():
    b = create_builder()
    s = structure(b)
    lig = s.component(selector="ligand")
    lig.representation(type="ball_and_stick").color(color="#e0552d")
    lig.label(text="Retinoic acid (REA)")
    lig.focus()
    return b.get_snapshot(
        key="ligand",
        title="Ligand",
        description="All-*trans* retinoic acid (REA), the ligand on its own.\n\n[Back to the overview](#overview)",
        linger_duration_ms=4000,
        transition_duration_ms=800,
    )


def main() -> None:
    states = mvs.States(
        snapshots=[overview(), binding_site(), ligand()],
        metadata=mvs.GlobalMetadata(
            title="Retinoic acid in CRABP2 (1CBS)",
            description="A three-step Story over the committed 1CBS structure.",
        ),
    )
    archive = mvs.MVSX(data=states, assets={"1cbs.cif": DATA / "1cbs.cif"})
    out = DATA / "1cbs-story.mvsx"
    out.write_bytes(archive.dumps())
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
