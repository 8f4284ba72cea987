"""Agent tokens: credentials that open only the molspace MCP endpoint.

The Jupyter token opens everything the server serves, ``/api/kernels`` and
``/api/terminals`` included, so an agent steered by text inside a Story could
run code with it. An agent token opens ``{base_url}molspace/mcp`` and nothing
else: Jupyter's own handlers do not know it.

Tokens look like ``msa_<id>_<secret>``; only a SHA-256 hash of the whole token
is stored (the secret is 256 random bits, so a fast hash is enough), in a JSON
file readable by its owner only (mode 0600), by default
``{jupyter_data_dir}/molspace/agent-tokens.json``. ``jupyter molspace token``
creates, lists and revokes them; the gateway re-reads the file when it changes,
so a revocation takes effect on the next request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_data_dir

#: Prefix that tells an agent token from a Jupyter token.
PREFIX = "msa_"
_TOKEN_RE = re.compile(r"^msa_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def default_path() -> Path:
    """``{jupyter_data_dir}/molspace/agent-tokens.json`` (honours ``JUPYTER_DATA_DIR``)."""
    return Path(jupyter_data_dir()) / "molspace" / "agent-tokens.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class AgentToken:
    """One stored agent token (never the token itself).

    Attributes
    ----------
    id : str
        12 hex characters, also inside the token (``msa_<id>_...``).
    name : str
        Who it is for, e.g. ``claude-code`` (1-64 of ``A-Za-z0-9._-``).
    sha256 : str
        Hex SHA-256 of the whole token.
    created : str
        ISO 8601 UTC time of creation.
    """

    id: str
    name: str
    sha256: str
    created: str


class AgentTokenError(ValueError):
    """A token command that cannot be carried out (bad name, unknown token, unreadable file)."""


class AgentTokenStore:
    """The agent tokens of one Jupyter user.

    Parameters
    ----------
    path : str or Path, optional
        The JSON file; default :func:`default_path`.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self._cache: tuple[float, int, dict[str, AgentToken]] | None = None

    # ------------------------------------------------------------------ reading
    def _load(self) -> dict[str, AgentToken]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return {}
        if self._cache is not None and self._cache[:2] == (stat.st_mtime, stat.st_size):
            return self._cache[2]
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            tokens = {t["id"]: AgentToken(**t) for t in data.get("tokens", [])}
        except (ValueError, TypeError, KeyError) as e:
            raise AgentTokenError(
                f"{self.path} is not a molspace agent-token file ({e}); move it away and create new tokens"
            ) from None
        self._cache = (stat.st_mtime, stat.st_size, tokens)
        return tokens

    def list(self) -> list[AgentToken]:
        """Every stored token, oldest first."""
        return sorted(self._load().values(), key=lambda t: t.created)

    def verify(self, token: str) -> AgentToken | None:
        """The stored token this string is, or ``None`` (unknown, revoked or malformed)."""
        match = _TOKEN_RE.match(token.strip())
        if not match:
            return None
        try:
            record = self._load().get(match.group(1))
        except AgentTokenError:
            return None
        if record is None or not hmac.compare_digest(record.sha256, _digest(token.strip())):
            return None
        return record

    # ------------------------------------------------------------------ writing
    def _save(self, tokens: dict[str, AgentToken]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"version": 1, "tokens": [asdict(t) for t in tokens.values()]}, indent=2)
        fd, tmp = tempfile.mkstemp(prefix=".agent-tokens.", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._cache = None

    def create(self, name: str) -> tuple[AgentToken, str]:
        """Mint a token.

        Returns
        -------
        (AgentToken, str)
            The stored record and the token itself (shown once, never stored).

        Raises
        ------
        AgentTokenError
            If ``name`` is not 1-64 of ``A-Za-z0-9._-`` or is already used.
        """
        if not _NAME_RE.match(name):
            raise AgentTokenError(
                f"token name {name!r} must be 1-64 characters of A-Z a-z 0-9 . _ -"
            )
        tokens = dict(self._load())
        if any(t.name == name for t in tokens.values()):
            raise AgentTokenError(
                f"a token named {name!r} exists; revoke it first or choose another name"
            )
        token_id = secrets.token_hex(6)
        token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        created = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        record = AgentToken(id=token_id, name=name, sha256=_digest(token), created=created)
        tokens[token_id] = record
        self._save(tokens)
        return record, token

    def revoke(self, name_or_id: str) -> AgentToken:
        """Delete a token by name or id.

        Raises
        ------
        AgentTokenError
            If no token has that name or id.
        """
        tokens = dict(self._load())
        found = next((t for t in tokens.values() if name_or_id in (t.name, t.id)), None)
        if found is None:
            known = ", ".join(t.name for t in tokens.values()) or "none"
            raise AgentTokenError(f"no agent token named {name_or_id!r} (tokens: {known})")
        del tokens[found.id]
        self._save(tokens)
        return found


def token_from_authorization(header: str | None) -> str | None:
    """The agent token in an ``Authorization: Bearer msa_...`` or ``token msa_...`` header, if any."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() in ("bearer", "token") and value.startswith(PREFIX):
        return value
    return None


__all__: list[Any] = [
    "AgentToken",
    "AgentTokenError",
    "AgentTokenStore",
    "PREFIX",
    "default_path",
    "token_from_authorization",
]
