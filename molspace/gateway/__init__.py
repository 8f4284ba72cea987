"""molspace MCP gateway: the Jupyter server extension that relays MCP tool calls to pages.

Modules
-------
asgi_adapter
    Generic tornado → ASGI adapter (serves the SDK's Streamable HTTP app).
app
    ``MolspaceGateway`` ExtensionApp: endpoints, lifecycle, config traits.
server
    Low-level MCP server built from the contract manifest.
pages
    Page registry, routing and relayed calls with deadlines.
handlers
    Tornado handlers for ``molspace/mcp`` and ``molspace/bridge``.
"""
