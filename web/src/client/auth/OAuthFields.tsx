// The OAuth options of Connect and of the guided debugger: what `call --auth` takes on the command line.
import type { OAuthOptions } from "./api";

const FIELDS: [keyof OAuthOptions, string, string][] = [
  ["client_id", "client id", "pre-registered client id (empty: register, RFC 7591)"],
  ["client_secret", "client secret", "its secret, if it has one"],
  ["client_metadata_url", "client metadata URL", "https://… Client ID Metadata Document"],
  ["scope", "scope", "empty: from WWW-Authenticate, then scopes_supported"],
];

export function OAuthFields({ value, onChange }: { value: OAuthOptions; onChange: (v: OAuthOptions) => void }) {
  return (
    <div className="oauth-fields">
      {FIELDS.map(([key, label, hint]) => (
        <input
          key={key}
          aria-label={label}
          placeholder={hint}
          type={key === "client_secret" ? "password" : "text"}
          autoComplete="off"
          value={value[key] ?? ""}
          onChange={(e) => onChange({ ...value, [key]: e.target.value })}
        />
      ))}
    </div>
  );
}
