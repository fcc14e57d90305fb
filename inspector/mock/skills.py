"""The mock client's side of Skills (SEP-2640): fetching a listed skill's files and verifying them.

`fetch_skill(request, entry)` loads one skill as a host does when it needs it (never on connection
or listing: no prefetch): SKILL.md first, checked against the entry (size, sha256 digest, then its
frontmatter field by field), then the skill's other listed files, each checked; the first file
that fails raises `SkillVerificationError` and nothing after it is read. `mcp-inspect call
skills/list --fetch-skills` (or skills/get) runs it for every entry of the answer.

`conformance_call(scenario)`: what a conformance client command does for the suite's
sep-2640-client-* scenarios, as the arguments of one `mcp-inspect call` (the suite's URL added).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from inspector.errors import SkillVerificationError
from inspector.protocol.skills import content_bytes, frontmatter_differences, split_manifest, verify_file

__all__ = ["CONFORMANCE_SCENARIOS", "conformance_call", "fetch_skill", "fetch_skills", "listed_entries"]

Request = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

# The suite's client scenarios of SEP-2640 and the call that answers each: list only (a host MUST NOT
# retrieve files ahead of need), or list and load every skill (each file verified before use).
CONFORMANCE_SCENARIOS: dict[str, list[str]] = {
    "sep-2640-client-no-prefetch": ["skills/list"],
    "sep-2640-client-verify-digest": ["skills/list", "--fetch-skills"],
    "sep-2640-client-verify-size": ["skills/list", "--fetch-skills"],
    "sep-2640-client-verify-frontmatter": ["skills/list", "--fetch-skills"],
}


def conformance_call(scenario: str) -> list[str] | None:
    """`mcp-inspect call` arguments (before --url) for a sep-2640 client scenario; None for another."""
    found = CONFORMANCE_SCENARIOS.get(scenario)
    return list(found) if found is not None else None


def listed_entries(method: str, result: Any) -> list[dict[str, Any]]:
    """The skill entries of a skills/list or skills/get result."""
    if not isinstance(result, dict):
        return []
    if method == "skills/get":
        return [result["skill"]] if isinstance(result.get("skill"), dict) else []
    return [e for e in result.get("skills") or [] if isinstance(e, dict)]


async def _read(request: Request, uri: str) -> tuple[bytes, dict[str, Any]]:
    answer = await request("resources/read", {"uri": uri})
    if "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        raise SkillVerificationError(uri, "read", f"resources/read failed: {error.get('message', error)}")
    contents = (answer.get("result") or {}).get("contents") or []
    content = next((c for c in contents if isinstance(c, dict) and c.get("uri", uri) == uri), None)
    data = content_bytes(content) if content else None
    if data is None or content is None:
        raise SkillVerificationError(uri, "read", "resources/read returned no text or blob content")
    return data, content


async def fetch_skill(request: Request, entry: dict[str, Any]) -> dict[str, Any]:
    """Load one skill from its entry: every file read and verified, SKILL.md first. Returns the entry
    and the files ({uri, size, digest, mimeType, text|blob}); raises `SkillVerificationError` at the
    first file that does not match (nothing after it is read)."""
    uri = entry.get("uri")
    if not isinstance(uri, str):
        raise SkillVerificationError(str(uri), "entry", "the skill entry has no uri")
    listing = entry.get("resources")
    files = [r for r in listing if isinstance(r, dict)] if isinstance(listing, list) else []
    manifest = next((r for r in files if r.get("uri") == uri), None)
    if isinstance(listing, list) and manifest is None:
        raise SkillVerificationError(uri, "entry", "the entry's resources do not list its SKILL.md")
    order = [manifest or {"uri": uri}] + [r for r in files if r is not manifest]
    fetched: list[dict[str, Any]] = []
    for listed in order:
        file_uri = str(listed.get("uri"))
        data, content = await _read(request, file_uri)
        failed = verify_file(listed, data)
        if failed:
            raise SkillVerificationError(file_uri, failed[0], failed[1])
        if file_uri == uri:
            front, _body = split_manifest(data.decode("utf-8", errors="replace"))
            differences = frontmatter_differences(front, entry.get("frontmatter"))
            if differences:
                raise SkillVerificationError(
                    file_uri, "frontmatter", "frontmatter mismatch with the entry: " + "; ".join(differences)
                )
        shown = {k: content[k] for k in ("mimeType", "text", "blob") if k in content}
        fetched.append({"uri": file_uri, "size": len(data), "digest": listed.get("digest"), **shown})
    return {"skill": entry, "files": fetched}


async def fetch_skills(request: Request, method: str, result: Any) -> dict[str, Any]:
    """`fetch_skill` for each entry of a skills/list or skills/get result, in order."""
    return {"skills": [await fetch_skill(request, e) for e in listed_entries(method, result)]}
