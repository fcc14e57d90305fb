"""Hand-made recordings of the Skills extension (SEP-2640) for the lint's rule cases."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.lint_recordings import SERVER_CAPS, Stdio, request, result

SKILLS = "io.modelcontextprotocol/skills"
MANIFEST = b"---\nname: pdf\ndescription: PDFs\n---\nBody\n"
ENTRY = {
    "uri": "skill://pdf/SKILL.md",
    "frontmatter": {"name": "pdf", "description": "PDFs"},
    "resources": [
        {
            "uri": "skill://pdf/SKILL.md",
            "digest": "sha256:" + hashlib.sha256(MANIFEST).hexdigest(),
            "size": len(MANIFEST),
        }
    ],
}


def skills_server(directory_read: bool = True) -> dict[str, Any]:
    """Server capabilities declaring the Skills extension."""
    settings = {"directoryRead": True} if directory_read else {}
    return {**SERVER_CAPS, "resources": {}, "extensions": {SKILLS: settings}}


def _invalid_shape() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake(server=skills_server())
    s.send("c2s", request(5, "skills/list"))
    bad = {**ENTRY, "resources": [{"uri": "skill://pdf/SKILL.md", "digest": "md5:abc", "size": -1}]}
    return s.rows, s.send("s2c", result(5, {"skills": [bad]}))


def _not_declared() -> tuple[list[dict[str, Any]], int]:
    s = Stdio().handshake()
    seq = s.send("c2s", request(5, "skills/list"))
    s.send("s2c", result(5, {"skills": []}))
    return s.rows, seq


SKILLS_CASES = {
    "skills-invalid-shape": _invalid_shape,
    "skills-extension-not-declared": _not_declared,
}
