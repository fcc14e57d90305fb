"""Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension): the facts every side shares.
No IO.

A server that declares the extension answers `skills/list` (entries: the SKILL.md `uri`, its
`frontmatter` as a JSON object, and `resources`: every file's `{uri, digest, size}`, or
"dynamic"), `skills/get` (`{skill: entry}`) and, with `directoryRead: true`,
`resources/directory/read` (a directory's direct children; subdirectories have mimeType
`inode/directory`); the files themselves are read with `resources/read`. A host verifies each file
against its entry (size, then the sha256 digest of the raw bytes) and the SKILL.md frontmatter
against the entry's, field by field, and uses no content that fails.

The mock server (`inspector.scenario.skills`), the mock client (`inspector.mock.skills`), the lint
and the viewer's API use these; one parser of SKILL.md frontmatter, one digest, one verifier.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from inspector.protocol.mcp_tables import EXTENSION_CLIENT_REQUESTS

__all__ = [
    "DIRECTORY_MIME",
    "SKILLS_EXTENSION",
    "SKILL_METHODS",
    "content_bytes",
    "file_digest",
    "frontmatter_differences",
    "split_manifest",
    "verify_file",
]

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SKILL_METHODS = frozenset(m for m, ext in EXTENSION_CLIENT_REQUESTS.items() if ext == SKILLS_EXTENSION)
DIRECTORY_MIME = "inode/directory"
_FRONTMATTER = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)")


def file_digest(data: bytes) -> str:
    """The digest of a skill file as entries carry it: `sha256:` and 64 lowercase hex digits."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def split_manifest(text: str) -> tuple[dict[str, Any] | None, str]:
    """The YAML frontmatter of a SKILL.md (None: no leading `---` block, or not a YAML mapping of
    JSON values) and the text after it."""
    import yaml

    bom = 1 if text.startswith("\ufeff") else 0
    found = _FRONTMATTER.match(text[bom:])
    if not found:
        return None, text
    try:
        data = yaml.safe_load(found.group(1))
    except yaml.YAMLError:
        return None, text
    if not isinstance(data, dict) or not _json_like(data):
        return None, text
    return data, text[bom + found.end() :]


def _json_like(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_like(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def content_bytes(content: dict[str, Any]) -> bytes | None:
    """The raw bytes of one `resources/read` content (text as UTF-8, a blob decoded), or None."""
    if isinstance(content.get("text"), str):
        return str(content["text"]).encode()
    if isinstance(content.get("blob"), str):
        try:
            return base64.b64decode(str(content["blob"]), validate=True)
        except ValueError:
            return None
    return None


def verify_file(listed: dict[str, Any], data: bytes) -> tuple[str, str] | None:
    """Whether `data` is the file `listed` ({uri, digest, size}) describes: None, or the check that
    failed (size|digest) and why. The size first: a length that differs is a failure whatever the
    digest."""
    size = listed.get("size")
    if isinstance(size, int) and len(data) != size:
        return "size", f"size mismatch: {len(data)} bytes where the skill's entry says {size}"
    digest = listed.get("digest")
    if isinstance(digest, str) and file_digest(data) != digest.lower():
        return (
            "digest",
            f"digest mismatch: sha256 {file_digest(data)[7:19]}... where the skill's entry says {digest[7:19]}...",
        )
    return None


def frontmatter_differences(in_file: dict[str, Any] | None, in_entry: Any) -> list[str]:
    """The fields where a SKILL.md's frontmatter and its entry's differ (empty: identical)."""
    if in_file is None:
        return ["the SKILL.md has no YAML frontmatter"]
    if not isinstance(in_entry, dict):
        return ["the entry has no frontmatter object"]
    return [
        f"{key}: file {in_file.get(key)!r}, entry {in_entry.get(key)!r}"
        for key in sorted({*in_file, *in_entry})
        if in_file.get(key) != in_entry.get(key)
    ]
