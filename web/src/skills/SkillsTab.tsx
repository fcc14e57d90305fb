// Skills (SEP-2640) of a recorded session: each skill its server listed (skills/list, skills/get), its
// frontmatter, its SKILL.md as recorded, and its files with the digest and size the entry lists,
// each recorded read checked against them (verified, mismatch, unread).
import { Link } from "react-router";
import { JsonBlock } from "../views/Info";
import "./skills.css";
import type { SkillsOut } from "./useSkills";

type Skill = SkillsOut["skills"][number];

export function SkillsTab({ sessionId, skills }: { sessionId: number; skills: SkillsOut | null }) {
  if (!skills) return <p className="muted">Loading the session's skills…</p>;
  return (
    <div className="skills" data-testid="skills">
      <p className="muted">
        The server declared <span className="mono">io.modelcontextprotocol/skills</span>
        {skills.directory_read ? " with directoryRead" : ""}.{" "}
        {skills.mismatches > 0 ? (
          <span className="badge warn" data-testid="skills-mismatches">
            {skills.mismatches} file{skills.mismatches === 1 ? "" : "s"} not matching the listing
          </span>
        ) : null}
      </p>
      {skills.skills.length === 0 ? (
        <p className="muted">No recorded skills/list or skills/get answer lists a skill.</p>
      ) : (
        skills.skills.map((s) => <SkillCard key={s.uri} sessionId={sessionId} skill={s} />)
      )}
    </div>
  );
}

function SkillCard({ sessionId, skill: s }: { sessionId: number; skill: Skill }) {
  return (
    <section className="card skill" data-testid={`skill-${s.name ?? s.uri}`}>
      <h3>
        {s.name ?? s.uri} <span className="mono small muted">{s.uri}</span>
      </h3>
      {s.description && <p>{s.description}</p>}
      <p className="small muted">
        listed by <Link to={`/sessions/${sessionId}/messages/${s.list_seq}`}>#{s.list_seq}</Link>
        {s.dynamic ? " · resources: dynamic (no digests listed)" : ""}
      </p>
      <details>
        <summary>Frontmatter</summary>
        <JsonBlock value={s.frontmatter} />
      </details>
      <table className="grid skill-files">
        <thead>
          <tr>
            <th>File</th>
            <th>Size</th>
            <th>Digest</th>
            <th>Recorded read</th>
          </tr>
        </thead>
        <tbody>
          {s.files.map((f) => (
            <tr key={f.uri} className={f.status} data-testid="skill-file" data-status={f.status}>
              <td className="mono">{f.uri}</td>
              <td>{f.size ?? "–"}</td>
              <td className="mono small" title={f.digest ?? ""}>
                {f.digest ? `${f.digest.slice(0, 19)}…` : "–"}
              </td>
              <td>
                {f.status === "unread" ? (
                  <span className="muted">not read</span>
                ) : (
                  <>
                    <span className={`badge ${f.status === "mismatch" ? "warn" : ""}`}>{f.status}</span>{" "}
                    {f.read_seq != null && <Link to={`/sessions/${sessionId}/messages/${f.read_seq}`}>#{f.read_seq}</Link>}
                    {f.problem && (
                      <div className="small skill-problem" data-testid="skill-problem">
                        {f.problem}
                      </div>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.manifest != null && (
        <details>
          <summary>SKILL.md as recorded</summary>
          <pre className="skill-manifest" data-testid="skill-manifest">
            {s.manifest}
          </pre>
        </details>
      )}
    </section>
  );
}
