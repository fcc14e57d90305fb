"""Skills (SEP-2640) of a recorded session: what the viewer's Skills tab shows.

- `GET /api/sessions/{id}/skills`: whether the server declared `io.modelcontextprotocol/skills`
  (and `directoryRead`), the skills its recorded `skills/list` and `skills/get` answers gave (uri,
  frontmatter, files with digest and size), and for each file the recorded `resources/read` of
  it checked against its entry (`inspector.protocol.skills`: size, sha256 digest; for SKILL.md the
  frontmatter too): verified, mismatch (with the problem) or unread. The manifest's text when read.

Everything comes from the recorded messages; nothing is fetched.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import orjson
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import Engine, select

from inspector.api.deps import run_query, state_of
from inspector.api.params import SqlInt
from inspector.protocol.skills import (
    SKILLS_EXTENSION,
    content_bytes,
    file_digest,
    frontmatter_differences,
    split_manifest,
    verify_file,
)
from inspector.protocol.sse import stored_body
from inspector.store import bodies, get_session, schema

__all__ = ["router", "skills_of"]

router = APIRouter(tags=["skills"])
_METHODS = ("initialize", "server/discover", "skills/list", "skills/get", "resources/read")


class SkillFileOut(BaseModel):
    uri: str
    digest: str | None = Field(None, description="the digest the entry lists")
    size: int | None = Field(None, description="the size the entry lists")
    status: Literal["verified", "mismatch", "unread"] = Field(
        description="the recorded read of the file against its entry: verified, mismatch or unread"
    )
    problem: str | None = Field(None, description="what did not match (size, digest, frontmatter)")
    read_seq: int | None = Field(None, description="seq of the newest recorded resources/read answer")
    read_size: int | None = None
    read_digest: str | None = None


class SkillOut(BaseModel):
    uri: str
    name: str | None = None
    description: str | None = None
    frontmatter: dict[str, Any] = Field(description="the entry's frontmatter")
    dynamic: bool = Field(description='the entry lists its files as "dynamic" (no manifest of digests)')
    list_seq: int = Field(description="seq of the skills/list or skills/get answer that gave the entry")
    files: list[SkillFileOut]
    manifest: str | None = Field(None, description="the SKILL.md text as recorded, when it was read")


class SkillsOut(BaseModel):
    session_id: int
    declared: bool = Field(description="the server declared the io.modelcontextprotocol/skills extension")
    directory_read: bool = Field(description="... with directoryRead: true")
    skills: list[SkillOut]
    mismatches: int = Field(description="files whose recorded read does not match their entry")


def _answers(engine: Engine, session_id: int) -> list[tuple[int, str, dict[str, Any]]]:
    """(seq, method, result) of the session's recorded answers of the methods the tab reads."""
    t = schema.message
    with engine.connect() as conn:
        rows = conn.execute(
            select(t.c.seq, t.c.kind, t.c.channel, t.c.raw, t.c.method, t.c.body_sha256)
            .where(t.c.session_id == session_id, t.c.method.in_(_METHODS), t.c.kind == "response")
            .order_by(t.c.seq)
        ).all()
        filled = [dict(r._mapping) for r in rows]
        bodies.fill(conn, filled)
    out = []
    for row in filled:
        try:
            body = orjson.loads(stored_body(cast(str, row["channel"]), cast(bytes, row["raw"])))
        except orjson.JSONDecodeError:
            continue
        result = body.get("result") if isinstance(body, dict) else None
        if isinstance(result, dict):
            out.append((cast(int, row["seq"]), cast(str, row["method"]), result))
    return out


def skills_of(engine: Engine, session_id: int) -> SkillsOut:
    """The Skills tab's content of a stored session (see the module's docstring)."""
    get_session(engine, session_id)  # NotFoundError: 404
    declared: Any = None
    entries: dict[str, tuple[int, dict[str, Any]]] = {}
    reads: dict[str, tuple[int, dict[str, Any]]] = {}
    for seq, method, result in _answers(engine, session_id):
        if method in ("initialize", "server/discover"):
            caps = result.get("capabilities")
            extensions = caps.get("extensions") if isinstance(caps, dict) else None
            if isinstance(extensions, dict):
                declared = extensions.get(SKILLS_EXTENSION, declared)
        elif method in ("skills/list", "skills/get"):
            listed = result.get("skills") if method == "skills/list" else [result.get("skill")]
            for entry in listed if isinstance(listed, list) else []:
                if isinstance(entry, dict) and isinstance(entry.get("uri"), str):
                    entries[entry["uri"]] = (seq, entry)
        else:
            for content in result.get("contents") or []:
                if isinstance(content, dict) and isinstance(content.get("uri"), str):
                    reads[content["uri"]] = (seq, content)
    skills = [_skill(uri, seq, entry, reads) for uri, (seq, entry) in entries.items()]
    return SkillsOut(
        session_id=session_id,
        declared=declared is not None,
        directory_read=isinstance(declared, dict) and declared.get("directoryRead") is True,
        skills=skills,
        mismatches=sum(f.status == "mismatch" for s in skills for f in s.files),
    )


def _skill(
    uri: str, seq: int, entry: dict[str, Any], reads: dict[str, tuple[int, dict[str, Any]]]
) -> SkillOut:
    found = entry.get("frontmatter")
    front: dict[str, Any] = found if isinstance(found, dict) else {}
    resources = entry.get("resources")
    listing = [r for r in resources if isinstance(r, dict)] if isinstance(resources, list) else []
    if not any(r.get("uri") == uri for r in listing):
        listing = [{"uri": uri}, *listing]  # "dynamic" (or an entry without its own): SKILL.md still shows
    files = []
    manifest = None
    for listed in listing:
        file_uri = str(listed.get("uri"))
        digest = listed.get("digest") if isinstance(listed.get("digest"), str) else None
        size = listed.get("size") if isinstance(listed.get("size"), int) else None
        read = reads.get(file_uri)
        data = content_bytes(read[1]) if read else None
        if read is None or data is None:
            files.append(SkillFileOut(uri=file_uri, digest=digest, size=size, status="unread"))
            continue
        failed = verify_file(listed, data)
        problem = failed[1] if failed else None
        if file_uri == uri:
            manifest = data.decode("utf-8", errors="replace")
            differences = frontmatter_differences(split_manifest(manifest)[0], entry.get("frontmatter"))
            if problem is None and differences:
                problem = "frontmatter mismatch with the entry: " + "; ".join(differences)
        files.append(
            SkillFileOut(
                uri=file_uri,
                digest=digest,
                size=size,
                status="mismatch" if problem else "verified",
                problem=problem,
                read_seq=read[0],
                read_size=len(data),
                read_digest=file_digest(data),
            )
        )
    return SkillOut(
        uri=uri,
        name=str(front["name"]) if isinstance(front.get("name"), str) else None,
        description=str(front["description"]) if isinstance(front.get("description"), str) else None,
        frontmatter=front,
        dynamic=resources == "dynamic",
        list_seq=seq,
        files=files,
        manifest=manifest,
    )


@router.get(
    "/api/sessions/{session_id}/skills",
    response_model=SkillsOut,
    summary="Skills (SEP-2640) of a recorded session",
)
async def skills_route(request: Request, session_id: SqlInt) -> SkillsOut:
    out: SkillsOut = await run_query(skills_of, state_of(request).engine, session_id)
    return out
