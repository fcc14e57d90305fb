"""The shapes of the Skills extension's messages (SEP-2640): `skills/list`, `skills/get` and
`resources/directory/read`, their params and their results. Sans-IO.

`mcp-types` has no models of extension methods, so the shapes are checked here, field by field as
the SEP states them: an entry is `{uri, frontmatter, resources}` (frontmatter an object with a
non-empty name and description, the uri's final skill-path segment that name; resources an array of
`{uri, digest: sha256:<64 lowercase hex>, size: integer >= 0}` listing the SKILL.md itself, or
"dynamic"); skills/get answers `{skill: entry}` and no cursor; a directory read `{resources: [{uri,
...}]}`. From 2026-07-28 the skills/list and skills/get results carry the caching hints. Whether the
server declared the extension is `lint.capabilities`' question.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["params_hits", "result_hits"]

Hit = tuple[str, str]
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_NAME = re.compile(r"^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$")
_CACHED = frozenset({"skills/list", "skills/get"})


def params_hits(method: str, payload: Any) -> tuple[Hit, ...]:
    """The shape findings of a skills request's params."""
    params = payload.get("params") if isinstance(payload, dict) else None
    problems: list[str] = []
    if params is not None and not isinstance(params, dict):
        problems.append("params: not an object")
    else:
        params = params or {}
        if method in ("skills/get", "resources/directory/read") and not isinstance(params.get("uri"), str):
            problems.append("params.uri: a string is required")
        if "cursor" in params and not isinstance(params["cursor"], str) and method != "skills/get":
            problems.append("params.cursor: not a string")
    return _hits(method, problems, "")


def _entry_problems(entry: Any, where: str) -> list[str]:
    if not isinstance(entry, dict):
        return [f"{where}: not an object"]
    out: list[str] = []
    uri = entry.get("uri")
    if not isinstance(uri, str) or not uri:
        out.append(f"{where}.uri: a string is required")
        uri = None
    front = entry.get("frontmatter")
    name = None
    if not isinstance(front, dict):
        out.append(f"{where}.frontmatter: an object is required")
    else:
        for key in ("name", "description"):
            if not isinstance(front.get(key), str) or not front[key]:
                out.append(f"{where}.frontmatter.{key}: a non-empty string is required")
        name = front.get("name") if isinstance(front.get("name"), str) else None
    if uri is not None:
        segments = [s for s in uri.split("://", 1)[-1].split("/") if s]
        if "://" not in uri or len(segments) < 2 or segments[-1] != "SKILL.md":
            out.append(f"{where}.uri: {uri} does not end in <skill-path>/SKILL.md")
        elif name is not None and segments[-2] != name:
            out.append(
                f"{where}.uri: final skill-path segment {segments[-2]!r} is not frontmatter.name {name!r}"
            )
        elif not _NAME.match(segments[-2]):
            out.append(f"{where}.uri: skill name {segments[-2]!r} breaks the naming rules")
    resources = entry.get("resources")
    if resources == "dynamic":
        return out
    if not isinstance(resources, list):
        out.append(f'{where}.resources: an array or "dynamic" is required')
        return out
    seen: set[str] = set()
    base = uri.rsplit("/", 1)[0] + "/" if uri else None
    for n, item in enumerate(resources):
        at = f"{where}.resources[{n}]"
        if not isinstance(item, dict):
            out.append(f"{at}: not an object")
            continue
        file_uri = item.get("uri")
        if not isinstance(file_uri, str):
            out.append(f"{at}.uri: a string is required")
        else:
            if file_uri in seen:
                out.append(f"{at}.uri: {file_uri} is listed twice")
            seen.add(file_uri)
            if base is not None and not file_uri.startswith(base):
                out.append(f"{at}.uri: {file_uri} is outside the skill's directory")
        if not isinstance(item.get("digest"), str) or not _DIGEST.match(item["digest"]):
            out.append(f"{at}.digest: sha256:<64 lowercase hex digits> is required")
        size = item.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            out.append(f"{at}.size: a non-negative integer is required")
    if uri is not None and uri not in seen:
        out.append(f"{where}.resources: no entry for the skill's own SKILL.md ({uri})")
    return out


def result_hits(method: str, revision: str | None, result: Any) -> tuple[Hit, ...]:
    """The shape findings of a skills request's result (and its caching hints from 2026-07-28)."""
    problems: list[str] = []
    hits: list[Hit] = []
    if not isinstance(result, dict):
        return _hits(method, ["result: an object is required"], "result of ")
    if method == "skills/list":
        skills = result.get("skills")
        if not isinstance(skills, list):
            problems.append("skills: an array is required")
        else:
            for n, entry in enumerate(skills):
                problems += _entry_problems(entry, f"skills[{n}]")
    elif method == "skills/get":
        problems += _entry_problems(result.get("skill"), "skill")
        if "nextCursor" in result:
            problems.append("nextCursor: a single entry is not a list (no cursor)")
    else:
        children = result.get("resources")
        if not isinstance(children, list):
            problems.append("resources: an array is required")
        else:
            for n, child in enumerate(children):
                if not isinstance(child, dict) or not isinstance(child.get("uri"), str):
                    problems.append(f"resources[{n}].uri: a string is required")
    if "nextCursor" in result and method != "skills/get" and not isinstance(result["nextCursor"], str):
        problems.append("nextCursor: not a string")
    if method in _CACHED and revision is not None and revision >= "2026-07-28":
        missing = [k for k in ("ttlMs", "cacheScope") if k not in result]
        if missing:
            hits.append(
                ("cache-hints-missing", f"result of {method} ({revision}) without {', '.join(missing)}")
            )
    return (*hits, *_hits(method, problems, "result of "))


def _hits(method: str, problems: list[str], prefix: str) -> tuple[Hit, ...]:
    if not problems:
        return ()
    shown = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
    return (("skills-invalid-shape", f"{prefix}{method} (SEP-2640): {shown}"),)
