// While Connect authorizes: the authorization request to open in a new tab (the redirect comes back to
// the inspector's /oauth/callback, and the connection goes on by itself).
import { useEffect, useState } from "react";
import { authApi, type PendingAuthorization } from "./api";

export function PendingAuthorizations({ serverUrl }: { serverUrl: string }) {
  const [items, setItems] = useState<PendingAuthorization[]>([]);
  useEffect(() => {
    let alive = true;
    const poll = () =>
      authApi.pending().then(
        (l) => alive && setItems(l.items.filter((p) => p.purpose === "connect" && p.server_url === serverUrl)),
        () => undefined,
      );
    poll();
    const timer = setInterval(poll, 400);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [serverUrl]);
  if (!items.length) return null;
  return (
    <div className="oauth-pending" role="status">
      {items.map((p) => (
        <p key={p.id}>
          The server asks for authorization.{" "}
          <a href={p.url} target="_blank" rel="noopener noreferrer">
            Open the authorization page
          </a>{" "}
          <span className="muted">(a new tab; it comes back to the inspector)</span>
        </p>
      ))}
    </div>
  );
}
