// The OAuth options of Connect and of the guided debugger: what `call --auth` takes on the command line.
import type { OAuthOptions } from "./api";

const FIELDS: [keyof OAuthOptions, string, string, string][] = [
  ["client_id", "client id", "client id (empty: register)", "a pre-registered client; empty: Dynamic Client Registration (RFC 7591)"],
  ["client_secret", "client secret", "client secret (if any)", "the pre-registered client's secret, if it has one"],
  ["client_metadata_url", "client metadata URL", "client metadata document URL", "an https:// Client ID Metadata Document, used where the server accepts them"],
  ["scope", "scope", "scope (empty: the server's)", "empty: the WWW-Authenticate scope, else the resource's scopes_supported"],
];

export function OAuthFields({ value, onChange }: { value: OAuthOptions; onChange: (v: OAuthOptions) => void }) {
  return (
    <div className="oauth-fields">
      {FIELDS.map(([key, label, hint, title]) => (
        <input
          key={key}
          aria-label={label}
          placeholder={hint}
          title={title}
          type={key === "client_secret" ? "password" : "text"}
          autoComplete="off"
          value={value[key] ?? ""}
          onChange={(e) => onChange({ ...value, [key]: e.target.value })}
        />
      ))}
    </div>
  );
}
