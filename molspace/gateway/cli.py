"""``jupyter molspace``: the command line of molspace.

    jupyter molspace token create --name claude-code   # prints a new agent token, once
    jupyter molspace token list                        # name, id, created (never the token)
    jupyter molspace token revoke claude-code          # by name or id
    jupyter molspace connect claude-code               # mint a token, write the client's MCP config
    jupyter molspace connect codex --print             # print it instead (cursor, vscode, gemini too)

Agent tokens open only ``{base_url}molspace/mcp`` (see :mod:`molspace.gateway.agent_tokens`).
``--file`` points at another token file (the server reads
``c.MolspaceGateway.agent_token_file``, default ``{jupyter_data_dir}/molspace/agent-tokens.json``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import client_config
from .agent_tokens import AgentTokenError, AgentTokenStore, default_path
from .client_config import CLIENTS, ClientConfigError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jupyter molspace", description="molspace command line.")
    commands = parser.add_subparsers(dest="command", required=True)
    token = commands.add_parser(
        "token", help="Agent tokens: credentials that open only the molspace MCP endpoint."
    )
    token.add_argument("--file", default=None, help=f"token file (default: {default_path()})")
    actions = token.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="mint a token and print it (shown once)")
    create.add_argument(
        "--name", required=True, help="who it is for, e.g. claude-code (A-Z a-z 0-9 . _ -)"
    )
    actions.add_parser("list", help="list tokens (name, id, created)")
    revoke = actions.add_parser("revoke", help="revoke a token by name or id")
    revoke.add_argument("name_or_id")
    connect = commands.add_parser(
        "connect",
        help="Mint an agent token and write (or print) an MCP client's configuration for this server.",
    )
    connect.add_argument("client", choices=sorted(CLIENTS), help="the agent client to configure")
    connect.add_argument(
        "--url",
        default=None,
        help="the Jupyter server URL with its base_url (default: the one running)",
    )
    connect.add_argument(
        "--config",
        default=None,
        help="the client file to write (default: where the client reads it)",
    )
    connect.add_argument(
        "--print", action="store_true", help="print the configuration; write nothing"
    )
    connect.add_argument(
        "--yes", action="store_true", help="replace an existing molspace entry without asking"
    )
    connect.add_argument(
        "--name", default=None, help="the agent token's name (default: the client's)"
    )
    connect.add_argument("--file", default=None, help=f"token file (default: {default_path()})")
    return parser


def _free_name(store: AgentTokenStore, wanted: str) -> str:
    names = {t.name for t in store.list()}
    if wanted not in names:
        return wanted
    n = 2
    while f"{wanted}-{n}" in names:
        n += 1
    return f"{wanted}-{n}"


def connect(args: argparse.Namespace) -> int:
    """``jupyter molspace connect CLIENT``: token + the client's MCP entry, merged into its file."""
    fmt = CLIENTS[args.client]
    path = Path(args.config).expanduser() if args.config else fmt.default_path(Path.cwd())
    try:
        endpoint = client_config.endpoint_of(args.url or client_config.running_server_url())
        doc = client_config.load(fmt, path)
        if not args.print and client_config.has_entry(fmt, doc) and not args.yes:
            asked = (
                sys.stdin.isatty()
                and input(f"Replace the existing molspace entry in {path}? [y/N] ").strip().lower()
            )
            if asked not in ("y", "yes"):
                raise ClientConfigError(
                    f"{path} already has a molspace entry; nothing was written and no token was made",
                    f"{path}: {'.'.join(fmt.table)}.molspace",
                    "Pass --yes to replace it, or --config for another file.",
                )
        store = AgentTokenStore(args.file)
        record, token = store.create(_free_name(store, args.name or fmt.name))
    except (ClientConfigError, AgentTokenError) as e:
        print(f"jupyter molspace connect {args.client}: {e}", file=sys.stderr)
        return 1
    if args.print:
        alone = client_config.with_entry(
            fmt, client_config.load(fmt, Path("/nonexistent")), endpoint, f"Bearer {token}"
        )
        print(client_config.dumps(fmt, alone), end="")
        print(
            f"molspace: agent token {record.name!r} made for {endpoint}; add the entry above to {path}.",
            file=sys.stderr,
        )
        return 0
    doc = client_config.with_entry(fmt, doc, endpoint, f"Bearer {token}")
    client_config.write(path, client_config.dumps(fmt, doc))
    print(
        f"molspace: wrote the molspace entry ({endpoint}, agent token {record.name!r}) to {path}; its other "
        f"entries are as they were. Revoke with: jupyter molspace token revoke {record.name}",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 refused, 2 usage)."""
    args = _parser().parse_args(argv)
    if args.command == "connect":
        return connect(args)
    store = AgentTokenStore(args.file)
    try:
        if args.action == "create":
            record, token = store.create(args.name)
            print(token)
            print(
                f"molspace: agent token {record.name!r} (id {record.id}) created; it opens only the MCP endpoint. "
                "Send it as 'Authorization: Bearer <token>'. It is not shown again.",
                file=sys.stderr,
            )
        elif args.action == "list":
            tokens = store.list()
            if not tokens:
                print(f"no agent tokens in {store.path}", file=sys.stderr)
            for t in tokens:
                print(f"{t.name}\t{t.id}\t{t.created}")
        elif args.action == "revoke":
            record = store.revoke(args.name_or_id)
            print(f"revoked agent token {record.name!r} (id {record.id})", file=sys.stderr)
    except AgentTokenError as e:
        print(f"jupyter molspace token {args.action}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
