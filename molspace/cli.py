"""``jupyter molspace``: the command line of molspace.

    jupyter molspace token create --name claude-code   # prints a new agent token, once
    jupyter molspace token list                        # name, id, created (never the token)
    jupyter molspace token revoke claude-code          # by name or id

Agent tokens open only ``{base_url}molspace/mcp`` (see :mod:`molspace.agent_tokens`).
``--file`` points at another token file (the server reads
``c.MolspaceGateway.agent_token_file``, default ``{jupyter_data_dir}/molspace/agent-tokens.json``).
"""

from __future__ import annotations

import argparse
import sys

from .agent_tokens import AgentTokenError, AgentTokenStore, default_path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jupyter molspace", description="molspace command line.")
    commands = parser.add_subparsers(dest="command", required=True)
    token = commands.add_parser("token", help="Agent tokens: credentials that open only the molspace MCP endpoint.")
    token.add_argument("--file", default=None, help=f"token file (default: {default_path()})")
    actions = token.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="mint a token and print it (shown once)")
    create.add_argument("--name", required=True, help="who it is for, e.g. claude-code (A-Z a-z 0-9 . _ -)")
    actions.add_parser("list", help="list tokens (name, id, created)")
    revoke = actions.add_parser("revoke", help="revoke a token by name or id")
    revoke.add_argument("name_or_id")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit code (0 ok, 1 refused, 2 usage)."""
    args = _parser().parse_args(argv)
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
