"""pytest-jupyter's plugin: a real Jupyter server per test (jp_serverapp, http_server, ...).

Coroutine tests run on pytest-jupyter's event loop (its ``jp_asyncio_loop``), the
loop the server runs on, as in Jupyter Server's own test suite.

Hypothesis (the fuzz tests, ``tests/fuzz``) draws the same inputs in every run: see
:func:`_same_draws_in_every_run`.
"""

from __future__ import annotations

from hypothesis import settings

pytest_plugins = ["pytest_jupyter.jupyter_server"]


def _same_draws_in_every_run() -> None:
    """Make a derandomized Hypothesis test draw the same inputs whatever else the run imports.

    Hypothesis (6.170 here) draws about 5 % of its numbers, strings and bytes from constants it
    reads out of the source of every *local* module in ``sys.modules`` (not site-packages, not
    test files), collected afresh whenever ``sys.modules`` grows. Under ``python -m pytest``
    (CI, a clean clone) ``molspace`` is imported from the checkout, so that pool is the
    constants of whichever molspace modules the selection had imported so far: one fuzz file
    alone drew other inputs than the same file within a larger run, whatever the seed.
    Hypothesis has no setting for it, so the pool is kept empty here; the global constants
    (the same in every run) stay. ``tests/fuzz/test_fuzz_determinism.py`` checks it.
    """
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):
        raise RuntimeError(
            "hypothesis.internal.conjecture.providers._get_local_constants is gone: check how this "
            "Hypothesis collects local constants and keep its draws independent of sys.modules "
            "(tests/conftest.py)"
        )
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty


_same_draws_in_every_run()

# Any Hypothesis test: derandomized, no example database (a database replays inputs a previous run
# stored in .hypothesis/, so a working tree would draw other inputs than a clean clone).
# tests/fuzz/fuzz_inputs.py's fuzz_settings says the same per test (and random for the bench run).
settings.register_profile("molspace", derandomize=True, database=None, deadline=None)
settings.load_profile("molspace")
