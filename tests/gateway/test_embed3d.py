"""``POST {base_url}molspace/embed3d``, the page's 3D endpoint, on a real Jupyter server."""

from __future__ import annotations

import httpx2
from rdkit import Chem

from molspace.gateway.embed_handler import MAX_BODY_BYTES


async def post(server_root: str, token: str | None, body: bytes) -> httpx2.Response:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"token {token}"
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(server_root + "molspace/embed3d", headers=headers, content=body)


async def test_answers_one_3d_sdf_record(server_root: str, token: str) -> None:
    r = await post(server_root, token, b'{"molfile": "c1ccccc1O"}')
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    body = r.json()
    mol = Chem.MolFromMolBlock(body["sdf"], removeHs=False)
    assert (
        body["atoms"] == mol.GetNumAtoms() == 13
        and mol.GetConformer().Is3D()
        and body["optimized"] is True
    )


async def test_bad_requests_get_located_errors(server_root: str, token: str) -> None:
    cases = [
        (b"not json", 400, "INVALID_INPUT"),
        (b'{"smiles": "CCO"}', 400, "INVALID_INPUT"),
        (b'{"molfile": 3}', 400, "INVALID_INPUT"),
        (b'{"molfile": ""}', 400, "VALIDATION_FAILED"),
        (b'{"molfile": "C1CC"}', 400, "VALIDATION_FAILED"),
        (b'{"molfile": "' + b"C" * 400 + b'"}', 413, "TOO_LARGE"),
        (b'{"molfile": "' + b"C" * MAX_BODY_BYTES + b'"}', 413, "TOO_LARGE"),
    ]
    for body, status, code in cases:
        r = await post(server_root, token, body)
        assert r.status_code == status, (body[:40], r.status_code, r.text)
        error = r.json()["error"]
        assert error["code"] == code and error["where"] == "/molfile" and error["fix"], (
            body[:40],
            error,
        )


async def test_needs_jupyter_credentials(server_root: str) -> None:
    r = await post(server_root, None, b'{"molfile": "CCO"}')
    assert r.status_code == 403
