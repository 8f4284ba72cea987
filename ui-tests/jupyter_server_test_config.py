"""Jupyter server for the Galata tests: Galata's test settings, plus token auth
(the MCP gateway is tested behind Jupyter's real authentication)."""

import os

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821
# The port playwright.config.js waits on (MOLSPACE_UI_TEST_PORT, default 8888).
c.ServerApp.port = int(os.environ.get("MOLSPACE_UI_TEST_PORT", "8888"))  # noqa: F821

# Galata turns authentication off; molspace's tests need it on.
c.IdentityProvider.token = "molspace-ui-test-token"  # noqa: F821
c.ServerApp.log_level = "INFO"  # noqa: F821
# A short deadline keeps the TIMEOUT path quick to exercise; the default is 30 s.
c.MolspaceGateway.call_timeout = 30.0  # noqa: F821
# CI machines run tests as root.
c.ServerApp.allow_root = True  # noqa: F821
