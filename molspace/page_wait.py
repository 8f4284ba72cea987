"""Waiting inside a cell for the page (docs/architecture.md, "Waiting for the page in a cell").

A kernel runs one cell at a time on its main shell. JupyterLab 4.6 sends widget comm
messages to a kernel subshell (its setting *Kernel Comms over subshells*, on by default),
and ipykernel >= 7 handles a subshell's messages on a thread of its own, so while a cell
waits here the page's answers and state updates still arrive: :func:`wait_for_page` only
has to look again until its condition holds. The cells queued behind the waiting one
(*Run All*) run after it, in order. molspace widgets keep the page's messages on the
subshell the page chose (:func:`keep_page_messages_on_their_subshell`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from .errors import PageWaitError

#: The longest wait a cell may ask for, in seconds.
MAX_TIMEOUT_S = 600.0
#: Seconds between two looks at the condition.
_POLL_INTERVAL_S = 0.02


def check_timeout(timeout: Any, where: str) -> float:
    """``timeout`` as seconds, or a located ``INVALID_INPUT`` naming ``where``.

    Raises
    ------
    PageWaitError
        ``INVALID_INPUT`` unless ``timeout`` is a number in (0, :data:`MAX_TIMEOUT_S`].
    """
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout)
        or not 0 < timeout <= MAX_TIMEOUT_S
    ):
        raise PageWaitError(
            "INVALID_INPUT",
            f"timeout must be a number of seconds in (0, {MAX_TIMEOUT_S:g}], not {timeout!r}",
            f"{where}(timeout=...)",
            "Pass timeout in seconds, e.g. timeout=30.",
            {"timeout": repr(timeout)[:80], "max_s": MAX_TIMEOUT_S},
        )
    return float(timeout)


def _kernel() -> Any:
    """The running ipykernel, or None outside one (plain Python, JupyterLite's Pyodide kernel)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    return kernel if hasattr(kernel, "shell_handlers") else None


def keep_page_messages_on_their_subshell(comm: Any) -> None:
    """Have ``comm``'s incoming messages handled on the subshell the page sent them to.

    ipykernel >= 7.4 routes a comm's incoming messages to the subshell that last published
    on it (``BaseComm._reply_subshell_for``); after a cell sends a control message that is
    the main shell, where the running cell would hold them until it ends (and where a
    message handled beside a running cell gets no ``idle`` status, which stalls
    ipywidgets' sync throttle). A molspace widget's page messages are answers and state,
    never replies a cell in another subshell awaits, so they stay where the page sent them.
    Kernels without that routing are left as they are.
    """
    if callable(getattr(comm, "_reply_subshell_for", None)):
        comm._reply_subshell_for = lambda _data, default: default


def wait_for_page(
    done: Callable[[], bool],
    *,
    timeout: float,
    what: str,
    where: str,
    fix: str,
) -> float:
    """Wait inside this cell until ``done()`` holds or ``timeout`` seconds have passed.

    Parameters
    ----------
    done : callable
        Checked before waiting and every 20 ms while the page's messages arrive.
    timeout : float
        Seconds, checked by :func:`check_timeout`.
    what : str
        What is awaited, for the error ("the page's answer to focus").
    where : str
        The call that waits (``"molspace.Viewer 'x'.wait_ready"``), the error's ``where``.
    fix : str
        What would let the wait succeed (no final stop): the start of the ``TIMEOUT`` fix.

    Returns
    -------
    float
        Seconds waited (0 when ``done()`` already held).

    Raises
    ------
    PageWaitError
        ``TIMEOUT`` after ``timeout`` seconds (``details.timeout_s``); ``NO_PAGE`` outside an
        IPython kernel that a page talks to (plain Python, JupyterLite's Pyodide kernel);
        ``INVALID_INPUT`` for a bad ``timeout``.
    """
    timeout = check_timeout(timeout, where)
    if done():
        return 0.0
    kernel = _kernel()
    if kernel is None:
        raise PageWaitError(
            "NO_PAGE",
            f"cannot wait for {what}: this Python is not a Jupyter (ipykernel) kernel that a "
            "page's messages reach",
            where,
            "Run the cell in a Jupyter kernel with the widget shown in JupyterLab, or read the "
            "widget's traits in a later cell.",
        )
    start = time.monotonic()
    while not done():
        if time.monotonic() - start >= timeout:
            raise PageWaitError(
                "TIMEOUT",
                f"{what} did not come within {timeout:g} s",
                where,
                f"{fix}; the page's messages reach a running cell through a kernel subshell: "
                "keep JupyterLab's setting Kernel Comms over subshells on (the default) and "
                "use ipykernel 7 or newer.",
                {"timeout_s": timeout},
            )
        time.sleep(_POLL_INTERVAL_S)  # the page's messages are handled on a subshell's thread
    return time.monotonic() - start
