"""The lint knows the Skills extension (SEP-2640): skills/list, skills/get and resources/directory/read
are not unknown methods; their shapes are checked; a call the server's capabilities do not cover is
flagged."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from inspector.lint import check_rows
from tests.lint_recordings import Stdio, notification, request, result
from tests.lint_skills_recordings import ENTRY, MANIFEST, skills_server

PV = "io.modelcontextprotocol/protocolVersion"


def _rules(rows: Any) -> list[tuple[str, int]]:
    return [(f.rule, f.seq) for f in check_rows(rows)]


def test_a_skills_session_lints_clean() -> None:
    s = Stdio().handshake(server=skills_server())
    s.send("c2s", request(2, "skills/list", {}))
    s.send("s2c", result(2, {"skills": [ENTRY]}))
    s.send("c2s", request(3, "skills/get", {"uri": ENTRY["uri"]}))
    s.send("s2c", result(3, {"skill": ENTRY}))
    s.send("c2s", request(4, "resources/directory/read", {"uri": "skill://pdf"}))
    s.send(
        "s2c",
        result(4, {"resources": [{"uri": ENTRY["uri"], "name": "SKILL.md", "mimeType": "text/markdown"}]}),
    )
    s.send("c2s", request(5, "resources/read", {"uri": ENTRY["uri"]}))
    s.send("s2c", result(5, {"contents": [{"uri": ENTRY["uri"], "text": MANIFEST.decode()}]}))
    dynamic = {**ENTRY, "resources": "dynamic"}
    s.send("c2s", request(6, "skills/list", {"cursor": "c1"}))
    s.send("s2c", result(6, {"skills": [dynamic]}))
    assert _rules(s.rows) == []


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"uri": "skill://other/SKILL.md"}, "is not frontmatter.name"),
        ({"frontmatter": {"name": "pdf"}}, "frontmatter.description"),
        ({"resources": None}, 'an array or "dynamic"'),
        ({"resources": []}, "no entry for the skill's own SKILL.md"),
        (
            {
                "resources": [
                    *ENTRY["resources"],
                    {"uri": "skill://elsewhere/x", "digest": "sha256:" + "0" * 64, "size": 1},
                ]
            },
            "outside the skill's directory",
        ),
        ({"resources": [{**ENTRY["resources"][0], "digest": "sha256:" + "A" * 64}]}, "digest: sha256"),
        ({"resources": [{**ENTRY["resources"][0], "size": "12"}]}, "size: a non-negative integer"),
    ],
)
def test_entry_shapes_are_checked(change: dict[str, Any], says: str) -> None:
    s = Stdio().handshake(server=skills_server())
    s.send("c2s", request(2, "skills/list"))
    seq = s.send("s2c", result(2, {"skills": [{**ENTRY, **change}]}))
    (finding,) = check_rows(s.rows)
    assert (finding.rule, finding.seq) == ("skills-invalid-shape", seq)
    assert says in finding.explanation


def test_get_params_cursor_and_directory_children() -> None:
    s = Stdio().handshake(server=skills_server())
    no_uri = s.send("c2s", request(2, "skills/get", {}))
    s.send("s2c", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "uri?"}})
    s.send("c2s", request(3, "skills/get", {"uri": ENTRY["uri"]}))
    cursor = s.send("s2c", result(3, {"skill": ENTRY, "nextCursor": "x"}))
    s.send("c2s", request(4, "resources/directory/read", {"uri": "skill://pdf"}))
    child = s.send("s2c", result(4, {"resources": [{"name": "no uri"}]}))
    assert _rules(s.rows) == [
        ("skills-invalid-shape", no_uri),
        ("skills-invalid-shape", cursor),
        ("skills-invalid-shape", child),
    ]


def test_directory_read_needs_directory_read_declared() -> None:
    s = Stdio().handshake(server=skills_server(directory_read=False))
    s.send("c2s", request(2, "skills/list"))
    s.send("s2c", result(2, {"skills": []}))
    seq = s.send("c2s", request(3, "resources/directory/read", {"uri": "skill://pdf"}))
    s.send("s2c", result(3, {"resources": []}))
    (finding,) = check_rows(s.rows)
    assert (finding.rule, finding.seq) == ("skills-extension-not-declared", seq)
    assert "directoryRead" in finding.explanation


def test_sent_the_wrong_way_or_without_an_id() -> None:
    s = Stdio().handshake(server=skills_server())
    wrong_way = s.send("s2c", request("r1", "skills/list"))
    s.send("c2s", result("r1", {"skills": []}))
    no_id = s.send("c2s", notification("skills/list"))
    assert _rules(s.rows) == [("method-not-in-revision", wrong_way), ("invalid-shape", no_id)]


def test_2026_results_need_the_cache_hints() -> None:
    s = Stdio()
    meta = {"_meta": {PV: "2026-07-28"}}
    s.send("c2s", request(1, "server/discover", meta))
    caps = skills_server()
    s.send(
        "s2c",
        result(1, {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": caps}),
    )
    s.send("c2s", request(2, "skills/list", meta))
    seq = s.send("s2c", result(2, {"resultType": "complete", "skills": [ENTRY]}))
    s.send("c2s", request(3, "skills/list", meta))
    s.send(
        "s2c", result(3, {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "skills": [ENTRY]})
    )
    hits = [(f.rule, f.seq) for f in check_rows(s.rows) if f.rule.startswith(("cache", "skills", "unknown"))]
    assert hits == [("cache-hints-missing", seq)]


def test_digest_is_of_the_bytes() -> None:
    assert ENTRY["resources"][0]["digest"] == "sha256:" + hashlib.sha256(MANIFEST).hexdigest()
