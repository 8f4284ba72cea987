"""pytest-jupyter's plugin: a real Jupyter server per test (jp_serverapp, http_server, ...).

Coroutine tests run on pytest-jupyter's event loop (its ``jp_asyncio_loop``), the
loop the server runs on, as in Jupyter Server's own test suite.
"""

pytest_plugins = ["pytest_jupyter.jupyter_server"]
