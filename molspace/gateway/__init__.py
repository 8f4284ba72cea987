"""molspace MCP gateway: the Jupyter server extension that relays MCP tool calls to pages.

Modules (the path of a call through them is in ``docs/architecture.md``)
-------
app
    ``MolspaceGateway`` ExtensionApp: settings, and the wiring of the collaborators below.
handlers
    Tornado handlers for ``molspace/mcp`` and ``molspace/bridge``.
asgi_adapter
    Generic tornado → ASGI adapter (serves the SDK's Streamable HTTP app).
session_host
    Holds the SDK's session manager ``run()`` context open while the server serves.
server
    Low-level MCP server built from the contract manifest; the error-result shape.
manifest
    Tool specs from the generated manifest: argument and result checks.
schema_errors
    A schema error located: JSON pointer, tagged-union item, problem text.
tools
    Tools the gateway answers itself (``status``), one module each.
pages
    ``ConnectedPages``: connected pages, routing and relayed calls with deadlines, made of
    ``page`` (one page), ``page_registry`` (pages by id and owner, focus, routing),
    ``mirrored_reads`` (reads from a page's mirror, served notes) and ``relayed_calls``
    (calls with deadlines, result reading).
bridge_frames
    Page frames checked against the contract's wire schema.
origin, connect_hint
    The Origin policy, and the "how to connect a page" sentence.
agent_tokens, cli
    Agent tokens (they open the MCP endpoint only), and ``jupyter molspace`` (``token``,
    ``connect``).
"""
