"""Each kernel widget's synced traits match the contract's synced state.

The contract (``src/contract/widgetState.ts``, emitted into the manifest as
``widgets``) declares each widget kind's ipywidgets model and view names and
its synced attributes with their defaults; the page's models take their
defaults from it. Here every ``sync=True`` trait of the Python widget is
checked against it, both ways: no trait the contract lacks, none missing,
and the same default.
"""

from __future__ import annotations

import ipywidgets
import pytest

import molspace
from molspace.contract import manifest

WIDGET_CLASSES = {
    "story": molspace.Story,
    "viewer": molspace.Viewer,
    "panel": molspace.Panel,
    "ketcher": molspace.Ketcher,
}

#: What every DOM widget syncs (ipywidgets' own traits and the module/name traits the
#: contract names separately as ``model`` and ``view``).
IPYWIDGETS_TRAITS = set(ipywidgets.DOMWidget.class_trait_names(sync=True))


def test_every_widget_kind_is_checked() -> None:
    assert set(manifest()["widgets"]) == set(WIDGET_CLASSES)


@pytest.mark.parametrize("kind", sorted(WIDGET_CLASSES))
def test_synced_traits_follow_the_contract(kind: str) -> None:
    spec = manifest()["widgets"][kind]
    cls = WIDGET_CLASSES[kind]
    traits = {
        name: trait
        for name, trait in cls.class_traits(sync=True).items()
        if name not in IPYWIDGETS_TRAITS
    }
    assert sorted(traits) == sorted(spec["defaults"]), (
        f"{cls.__name__}'s sync=True traits differ from src/contract/widgetState.ts ({kind}): "
        f"only in Python {sorted(set(traits) - set(spec['defaults']))}, "
        f"only in the contract {sorted(set(spec['defaults']) - set(traits))}"
    )
    defaults = {name: trait.default() for name, trait in traits.items()}
    differ = {
        name: {"python": value, "contract": spec["defaults"][name]}
        for name, value in defaults.items()
        if value != spec["defaults"][name]
    }
    assert not differ, (
        f"{cls.__name__}'s trait defaults differ from the contract ({kind}): {differ}"
    )


@pytest.mark.parametrize("kind", sorted(WIDGET_CLASSES))
def test_model_and_view_names_follow_the_contract(kind: str) -> None:
    spec = manifest()["widgets"][kind]
    cls = WIDGET_CLASSES[kind]
    assert cls.class_traits()["_model_name"].default() == spec["model"]
    assert cls.class_traits()["_view_name"].default() == spec["view"]
