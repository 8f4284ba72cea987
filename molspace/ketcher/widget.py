"""The kernel side of the Ketcher chemical editor widget (ipywidgets 8).

A :class:`Ketcher` shows the real Ketcher editor (with its standalone Indigo
engine) in the page. The page owns the structure: a person's drawing, a
cell's :meth:`Ketcher.set_structure` and an agent's ``ketcher_control`` all
run through the page's Dispatcher, and this object mirrors the result as
read-only synced traits (``smiles``, ``molfile``, ``ket``,
``structure_revision``, ...). See docs/architecture.md, "Ketcher".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import traitlets
from ipywidgets import CallbackDispatcher
from traitlets import Bool, Dict, Int, List, Unicode

from .._version import MODULE_NAME, MODULE_VERSION_RANGE
from ..contract import LIMITS
from ..errors import KetcherControlError, MolspaceError
from ..page_request import PageRequest
from ..page_widget import PageWidget

#: Formats the editor reads and writes (the contract's ``KetcherFormat``).
FORMATS = ("smiles", "molfile", "molfile-v3000", "ket", "sdf", "smarts", "inchi", "cml")

#: File extensions a path source may have, and the format each names.
EXTENSIONS = {
    ".smi": "smiles",
    ".smiles": "smiles",
    ".mol": "molfile",
    ".ket": "ket",
    ".sdf": "sdf",
    ".sd": "sdf",
    ".cml": "cml",
}

#: Traits only the page may change; the kernel reads them.
_PAGE_OWNED = (
    "ready",
    "error",
    "revision",
    "structure_revision",
    "interaction_revision",
    "dirty",
    "ket",
    "smiles",
    "molfile",
    "atoms",
    "bonds",
    "formula",
    "highlighted",
    "persist",
    "last_change",
    "summary",
    "ketcher_version",
)


@dataclass(frozen=True)
class KetcherChange:
    """A change of the editor's structure, as :meth:`Ketcher.on_change` sees it.

    Attributes
    ----------
    revision : int
        ``structure_revision`` after the change.
    source : str
        ``"ui"`` (a person drew), ``"kernel"`` (a cell) or ``"agent"`` (MCP).
    smiles : str
        The editor's SMILES after the change (``""`` when empty or not expressible).
    summary : str
    """

    revision: int
    source: str
    smiles: str
    summary: str


def structure_text(value: Any, format: str | None = None) -> tuple[str, str | None]:  # noqa: A002
    """Turn what a cell passed into structure text and its format.

    Parameters
    ----------
    value : str, os.PathLike or rdkit.Chem.Mol
        SMILES, Molfile (V2000/V3000), KET or SDF text; a path (relative to
        the working directory) of a ``.smi .mol .ket .sdf .sd .cml`` file; or
        an RDKit ``Mol`` (written as a Molfile, V3000 when RDKit needs it).
    format : str, optional
        One of :data:`FORMATS`; default: from the path's extension, else
        detected by Indigo in the page.

    Returns
    -------
    (str, str or None)
        The text and the format (``None``: detect).

    Raises
    ------
    KetcherControlError
        ``UNSUPPORTED_FORMAT`` (unknown format or extension), ``NOT_FOUND``
        (no such file), ``FORBIDDEN`` (a path outside the working directory),
        ``TOO_LARGE`` (over ``LIMITS["ketcherInlineBytes"]``), ``INVALID_INPUT``
        (another type).
    """
    if format is not None and format not in FORMATS:
        raise KetcherControlError(
            "UNSUPPORTED_FORMAT",
            f"{format!r} is not a format the Ketcher editor reads",
            "format",
            f"Use one of: {', '.join(FORMATS)}.",
            {"format": str(format), "formats": list(FORMATS)},
        )
    if type(value).__module__.startswith("rdkit") and hasattr(value, "GetNumAtoms"):
        from rdkit import Chem

        value, format = Chem.MolToMolBlock(value), "molfile"
    elif isinstance(value, os.PathLike) or (isinstance(value, str) and _looks_like_path(value)):
        value, format = _read_path(Path(value), format)
    if not isinstance(value, str):
        raise KetcherControlError(
            "INVALID_INPUT",
            f"a Ketcher structure is text, a path or an RDKit Mol, not {type(value).__name__}",
            "value",
            "Pass SMILES, Molfile, KET or SDF text, a file path, or an RDKit Mol.",
            {"type": type(value).__name__},
        )
    size = len(value.encode("utf-8"))
    limit = int(LIMITS["ketcherInlineBytes"])
    if size > limit:
        raise KetcherControlError(
            "TOO_LARGE",
            f"the structure is {size} bytes; the limit is {limit}",
            "value",
            "Pass a smaller structure (one molecule or reaction).",
            {"size": size, "limit": limit, "unit": "bytes"},
        )
    return value, format


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and Path(text).suffix.lower() in EXTENSIONS


def _read_path(path: Path, format: str | None) -> tuple[str, str | None]:  # noqa: A002
    fmt = format or EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        raise KetcherControlError(
            "UNSUPPORTED_FORMAT",
            f"{str(path)!r} does not end with a chemical file extension",
            "value",
            f"Name the file with one of {', '.join(EXTENSIONS)}, or pass format.",
            {"path": str(path), "extensions": list(EXTENSIONS)},
        )
    resolved = path.resolve()
    root = Path.cwd().resolve()
    if root not in (resolved, *resolved.parents):
        raise KetcherControlError(
            "FORBIDDEN",
            f"{str(path)!r} is outside the working directory {str(root)!r}",
            "value",
            "Pass a path under the notebook's working directory.",
            {"path": str(path)},
        )
    if not resolved.is_file():
        raise KetcherControlError(
            "NOT_FOUND",
            f"no file {str(path)!r}",
            "value",
            "Check the path (relative to the notebook).",
            {"path": str(path)},
        )
    return resolved.read_text(encoding="utf-8", errors="replace"), fmt


class Ketcher(PageWidget):
    """The Ketcher chemical editor, shared by the person, cells and agents.

    Parameters
    ----------
    value : str, os.PathLike or rdkit.Chem.Mol, optional
        A structure to start with (see :func:`structure_text`).
    format : str, optional
        Its format (one of :data:`FORMATS`); default: detected.
    title : str, optional
        Shown above the editor and in ``observe``.
    **kwargs
        Passed to :class:`ipywidgets.DOMWidget` (e.g. ``layout``).

    Raises
    ------
    KetcherControlError
        For a value that cannot be sent (see :func:`structure_text`). A value
        Indigo cannot read is reported by the page in :attr:`error`
        (``VALIDATION_FAILED`` with Indigo's message).

    Notes
    -----
    ``smiles``, ``molfile``, ``ket`` (Ketcher's JSON), ``atoms``, ``bonds``,
    ``formula``, ``structure_revision`` (every structural edit),
    ``interaction_revision`` (highlights), ``dirty``, ``ready`` and ``error``
    are set by the page, read-only here; they update when the kernel next
    processes messages (after the running cell). Operations return at once;
    the page's answer lands in :attr:`last_result`.

    Examples
    --------
    >>> k = Ketcher("O=C(O)[C@@]([H])(N)C")      # doctest: +SKIP
    >>> k.smiles, k.structure_revision            # doctest: +SKIP
    >>> k.highlight([0, 1])                       # doctest: +SKIP
    """

    _control_error = KetcherControlError

    _model_name = Unicode("KetcherModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)
    _view_name = Unicode("KetcherView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION_RANGE).tag(sync=True)

    _initial = Unicode("").tag(sync=True)
    _initial_format = Unicode(None, allow_none=True).tag(sync=True)
    title = Unicode("").tag(sync=True)

    ready = Bool(False, help="True once Ketcher and its Indigo engine have loaded.").tag(sync=True)
    revision = Int(0, help="= structure_revision (what expected_revision is checked against).").tag(
        sync=True
    )
    structure_revision = Int(0, help="Advanced by every structural edit.").tag(sync=True)
    interaction_revision = Int(0, help="Advanced by highlights.").tag(sync=True)
    dirty = Bool(False, help="Changed since loaded or last saved.").tag(sync=True)
    ket = Unicode("", help="The structure as KET (Ketcher's JSON).").tag(sync=True)
    smiles = Unicode(
        "",
        help="SMILES as Indigo writes it ('' when empty or not expressible); compare with RDKit canonical SMILES.",
    ).tag(sync=True)
    molfile = Unicode("", help="Molfile (V2000, or V3000 where needed).").tag(sync=True)
    atoms = Int(0).tag(sync=True)
    bonds = Int(0).tag(sync=True)
    formula = Unicode(
        None, allow_none=True, help="Gross formula from Indigo, e.g. 'C3 H7 N O2'."
    ).tag(sync=True)
    highlighted = List(Int(), help="Highlighted atoms (0-based, Molfile order).").tag(sync=True)
    persist = Dict(
        default_value=None,
        allow_none=True,
        help="The last save request {path, format, status, revision, message}.",
    ).tag(sync=True)
    summary = Unicode("", help="One line: what the editor holds.").tag(sync=True)
    ketcher_version = Unicode("").tag(sync=True)

    _fallback_kind = "ketcher"

    def _fallback_state(self) -> dict[str, Any]:
        # What the cell gave; once the page has shown the editor it sends what it holds.
        if self.ready or self.error:
            return {"title": self.title, "summary": repr(self)}
        given = self._initial.strip()
        if not given:
            held = "empty"
        elif "\n" not in given:  # SMILES, InChI: the text itself
            held = given if len(given) <= 200 else f"{given[:199]}…"
        else:  # Molfile, KET, SDF, CML
            held = f"{self._initial_format or 'a structure'} of {given.count(chr(10)) + 1} lines"
        return {"title": self.title, "summary": f"molspace Ketcher editor {self.title!r}: {held}"}

    def __init__(
        self,
        value: Any = None,
        format: str | None = None,  # noqa: A002 - the public keyword, as in RDKit and Mol*
        title: str | None = None,
        **kwargs: Any,
    ):
        text, fmt = structure_text(value, format) if value is not None else ("", None)
        self._change_callbacks = CallbackDispatcher()
        super().__init__(_initial=text, _initial_format=fmt, title=title or "Ketcher", **kwargs)
        self.observe(self._notify_change, names=["structure_revision"])
        self._constructed = True

    @traitlets.validate(*_PAGE_OWNED)
    def _page_owned(self, proposal: dict[str, Any]) -> Any:
        return self._page_owned_value(proposal, "use set_structure(), clear() or highlight()")

    @property
    def sdf(self) -> str:
        """The structure as an SDF record (the Molfile and ``$$$$``); ``""`` when empty."""
        if not self.molfile or self.atoms == 0:
            return ""
        return self.molfile.rstrip("\n") + "\n$$$$\n"

    # ------------------------------------------------------------------ operations
    def set_structure(
        self,
        value: Any,
        format: str | None = None,  # noqa: A002
        *,
        expected_revision: int | None = None,
        action_id: str | None = None,
    ) -> PageRequest:
        """Replace the editor's structure (one new ``structure_revision``).

        Parameters
        ----------
        value : str, os.PathLike or rdkit.Chem.Mol
            See :func:`structure_text`.
        format : str, optional
            One of :data:`FORMATS`; default: detected by Indigo.
        expected_revision : int, optional
            Refuse (REVISION_CONFLICT in :attr:`last_result`) if the structure changed since.
        action_id : str, optional
            Idempotency key.

        Returns
        -------
        PageRequest
            Shown in a cell as what happened; ``.wait()`` waits for the page's answer (raising
            its refusal, e.g. ``REVISION_CONFLICT``, as :class:`KetcherControlError`).

        Raises
        ------
        KetcherControlError
            See :func:`structure_text`.
        """
        text, fmt = structure_text(value, format)
        args: dict[str, Any] = {"action": "set_structure", "value": text}
        if fmt is not None:
            args["format"] = fmt
        return self._control(args, expected_revision, action_id)

    def clear(self, *, expected_revision: int | None = None) -> PageRequest:
        """Empty the editor (one new ``structure_revision``)."""
        return self._control({"action": "clear_structure"}, expected_revision, None)

    def highlight(self, atoms: list[int], color: str | None = None) -> PageRequest:
        """Highlight atoms (0-based indices, Molfile atom order); ``[]`` clears. Advances ``interaction_revision`` only.

        Raises
        ------
        KetcherControlError
            ``INVALID_INPUT`` for anything but a list of non-negative ints;
            ``TOO_LARGE`` over ``LIMITS["ketcherHighlightAtoms"]``.
        """
        if not isinstance(atoms, (list, tuple)) or not all(
            isinstance(a, int) and a >= 0 for a in atoms
        ):
            raise KetcherControlError(
                "INVALID_INPUT",
                "atoms must be a list of 0-based atom indices",
                "atoms",
                "Pass e.g. [0, 1, 2].",
            )
        limit = int(LIMITS["ketcherHighlightAtoms"])
        if len(atoms) > limit:
            raise KetcherControlError(
                "TOO_LARGE",
                f"{len(atoms)} atoms; at most {limit} can be highlighted at once",
                "atoms",
                "Highlight fewer atoms.",
                {"size": len(atoms), "limit": limit, "unit": "atoms"},
            )
        args: dict[str, Any] = {"action": "highlight_atoms", "atoms": list(atoms)}
        if color is not None:
            args["color"] = color
        return self._control(args, None, None)

    def on_change(self, callback: Callable[[KetcherChange], None], remove: bool = False) -> None:
        """Call ``callback(KetcherChange)`` after every structural edit: a person's, a cell's or an agent's."""
        self._change_callbacks.register_callback(callback, remove=remove)

    def to_viewer(self, **kwargs: Any) -> Any:
        """A :class:`molspace.Viewer` of the editor's molecule with 3D coordinates (SDF), embedded by RDKit.

        The molecule is the one the page last reported (:attr:`molfile`), or,
        before the page has reported any, the one the editor was made with.

        Raises
        ------
        KetcherControlError
            As :func:`molspace.ketcher.embedding.embed_3d`: ``VALIDATION_FAILED`` when the
            editor is empty or RDKit cannot read or embed the molecule,
            ``TOO_LARGE`` past its heavy-atom bound, ``UNSUPPORTED_FORMAT`` when
            RDKit is not installed.
        """
        from ..viewer import Viewer
        from .embedding import embed_3d

        if self.atoms:
            text = self.molfile
        elif self.structure_revision == 0 and self._initial:
            # Not reported by the page yet (e.g. under Run All): the structure the editor was made with.
            text = self._initial
        else:
            text = ""
        try:
            sdf = embed_3d(text, where="molfile").sdf
        except MolspaceError as e:
            raise KetcherControlError(e.code, e.message, e.where, e.fix, e.details) from e
        kwargs.setdefault("title", f"{self.title} (3D)")
        return Viewer(sdf, format="sdf", **kwargs)

    def _control(
        self, args: dict[str, Any], expected_revision: int | None, action_id: str | None
    ) -> PageRequest:
        if expected_revision is not None:
            args["expectedRevision"] = int(expected_revision)
        if action_id is not None:
            args["actionId"] = action_id
        return self._send_control(args, str(args["action"]))

    def _notify_change(self, _change: dict[str, Any]) -> None:
        last = self.last_change or {}
        self._change_callbacks(
            KetcherChange(
                revision=self.structure_revision,
                source=str(last.get("source", "")),
                smiles=self.smiles,
                summary=str(last.get("summary", "")),
            )
        )

    def __repr__(self) -> str:
        if self.error:
            return f"<molspace.Ketcher {self.title!r}: error {self.error.get('code')}: {self.error.get('message')}>"
        if not self.ready:
            return f"<molspace.Ketcher {self.title!r}: not shown yet (display it; the page loads the editor)>"
        return f"<molspace.Ketcher {self.summary}>"
