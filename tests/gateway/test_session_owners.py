"""SessionOwners: a session id held for the principal that opened it, bounded in size and age."""

from __future__ import annotations

import pytest

from molspace.gateway import session_owners
from molspace.gateway.session_owners import SessionOwners, principal_of


def test_only_the_opening_principal_may_enter() -> None:
    owners = SessionOwners(idle_seconds=None)
    owners.claim("s1", "token:a")
    owners.leave("s1")
    assert owners.enter("s1", "token:a") is True
    assert owners.enter("s1", "agent:b") is False
    assert owners.enter("never-claimed", "token:a") is False
    owners.release("s1")
    assert owners.enter("s1", "token:a") is False


def test_idle_sessions_are_dropped_but_not_while_a_request_is_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(session_owners.time, "monotonic", lambda: now[0])
    owners = SessionOwners(idle_seconds=60)
    owners.claim("streaming", "p")  # its request (an open GET stream, say) stays in flight
    owners.claim("done", "p")
    owners.leave("done")
    now[0] += 61
    assert owners.enter("streaming", "p") is True
    assert owners.enter("done", "p") is False
    assert len(owners) == 1


def test_capacity_drops_the_least_recently_used() -> None:
    owners = SessionOwners(idle_seconds=None, capacity=2)
    for sid in ["a", "b"]:
        owners.claim(sid, "p")
    assert owners.enter("a", "p") is True
    owners.claim("c", "p")
    assert owners.enter("b", "p") is False and len(owners) == 2


def test_principals_hold_no_secret() -> None:
    assert principal_of("claude", "secret", "u") == "agent:claude"
    key = principal_of(None, "secret", "u")
    assert key.startswith("token:") and "secret" not in key
    assert principal_of(None, None, "alice") == "user:alice"
