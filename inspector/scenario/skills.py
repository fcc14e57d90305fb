"""A scenario's agent skills (SEP-2640) as MCP wire objects. No IO.

`SkillSet(scenario.skills)` builds each skill's SKILL.md (from its name, description, frontmatter
and body, or its `manifest` as given), the bytes of every file, their `sha256:` digests and sizes,
and answers what the request handlers ask: the `skills/list` entries, one entry for `skills/get`,
the contents of a `resources/read` of a skill file, the children of a directory for
`resources/directory/read`, the SKILL.md resources `resources/list` shows. A skill's `tamper`
serves a SKILL.md that does not match its listing, for testing a client's verification.

The frontmatter parser and the digest are the ones every side uses (`inspector.protocol.skills`).
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from inspector.protocol.skills import (
    DIRECTORY_MIME,
    SKILL_METHODS,
    SKILLS_EXTENSION,
    file_digest,
    split_manifest,
)

if TYPE_CHECKING:
    from inspector.scenario.models import Skill

__all__ = [
    "DIRECTORY_MIME",
    "SKILLS_EXTENSION",
    "SKILL_METHODS",
    "SkillSet",
]

_MANIFEST = "SKILL.md"


@dataclass(frozen=True)
class SkillFileBytes:
    uri: str
    data: bytes
    mime_type: str
    text: bool  # served as text (UTF-8), else as a base64 blob


def _mime(path: str, given: str | None) -> str:
    if given:
        return given
    if path.endswith(".md"):
        return "text/markdown"
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def _tampered(data: bytes, how: str) -> bytes:
    if how == "size":
        return data + b"\nextra bytes the listing does not account for\n"
    # "digest": the same number of bytes, one letter changed (the last ASCII letter's case).
    for i in range(len(data) - 1, -1, -1):
        c = data[i : i + 1]
        if c.isalpha():
            return data[:i] + c.swapcase() + data[i + 1 :]
    return data[:-1] + b"?" if data else b"?"


class SkillSet:
    """The skills of a scenario as they are served (built once; the bytes are fixed)."""

    def __init__(self, skills: list[Skill]) -> None:
        self.entries: list[dict[str, Any]] = []
        self.files: dict[str, SkillFileBytes] = {}
        self.listed: list[dict[str, Any]] = []  # the SKILL.md resources of resources/list
        children: dict[str, dict[str, dict[str, Any]]] = {}
        for skill in skills:
            base = f"skill://{skill.path}/{skill.name}" if skill.path else f"skill://{skill.name}"
            manifest = skill.manifest_text()
            front, _ = split_manifest(manifest)
            front = front or {}
            listed_bytes = manifest.encode()
            served = listed_bytes
            if skill.tamper in ("digest", "size"):
                served = _tampered(listed_bytes, skill.tamper)
            elif skill.tamper == "frontmatter":
                other = {**front, "description": f"(tampered) {front.get('description', '')}"}
                block = yaml.safe_dump(other, sort_keys=False, allow_unicode=True, width=1_000_000)
                served = listed_bytes = (f"---\n{block}---\n" + split_manifest(manifest)[1]).encode()
            files = [SkillFileBytes(f"{base}/{_MANIFEST}", served, "text/markdown", True)]
            listing = [{"uri": files[0].uri, "digest": file_digest(listed_bytes), "size": len(listed_bytes)}]
            for f in skill.files:
                if f.blob is not None:
                    data, text = base64.b64decode(f.blob), False
                else:
                    data = (f.text or "").encode()
                    text = True
                served_file = SkillFileBytes(f"{base}/{f.path}", data, _mime(f.path, f.mimeType), text)
                files.append(served_file)
                listing.append({"uri": served_file.uri, "digest": file_digest(data), "size": len(data)})
            entry = {"uri": files[0].uri, "frontmatter": front, "resources": listing}
            self.entries.append(entry)
            self.listed.append(
                {
                    "uri": files[0].uri,
                    "name": str(front.get("name", skill.name)),
                    "description": str(front.get("description", "")),
                    "mimeType": "text/markdown",
                }
            )
            for sf in files:
                self.files[sf.uri] = sf
                self._place(
                    children,
                    sf.uri,
                    {"uri": sf.uri, "name": sf.uri.rsplit("/", 1)[1], "mimeType": sf.mime_type},
                )
        self.directories = {uri: list(kids.values()) for uri, kids in children.items()}

    @staticmethod
    def _place(children: dict[str, dict[str, dict[str, Any]]], uri: str, child: dict[str, Any]) -> None:
        """`child` under its parent directory, and each ancestor directory under its own parent
        (the first skill-path segment, the authority, is the top)."""
        while True:
            parent = uri.rsplit("/", 1)[0]
            if parent.count("/") < 2:
                return
            children.setdefault(parent, {})[uri] = child
            if parent.count("/") <= 2:  # skill://<authority>: the top directory
                return
            uri, child = parent, {"uri": parent, "name": parent.rsplit("/", 1)[1], "mimeType": DIRECTORY_MIME}

    def list_result(self) -> dict[str, Any]:
        return {"skills": self.entries}

    def entry(self, uri: str) -> dict[str, Any] | None:
        return next((e for e in self.entries if e["uri"] == uri), None)

    def read(self, uri: str) -> dict[str, Any] | None:
        """The `resources/read` result of a skill file, or None when `uri` is none."""
        found = self.files.get(uri)
        if found is None:
            return None
        content: dict[str, Any] = {"uri": uri, "mimeType": found.mime_type}
        if found.text:
            content["text"] = found.data.decode("utf-8", errors="replace")
        else:
            content["blob"] = base64.b64encode(found.data).decode()
        return {"contents": [content]}

    def directory(self, uri: str) -> dict[str, Any] | None:
        """The `resources/directory/read` result of a directory, or None when `uri` is none."""
        kids = self.directories.get(uri.rstrip("/"))
        return None if kids is None else {"resources": kids}
