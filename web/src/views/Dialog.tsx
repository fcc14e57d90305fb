// A modal dialog on the native <dialog>: focus stays inside, Esc closes it, focus returns on close.
import { useEffect, useRef, useState, type ReactNode } from "react";

export function Dialog({
  title,
  onClose,
  children,
  testId,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal(); // removed from the page when unmounted: no close()
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${wide ? "wide" : ""}`}
      data-testid={testId}
      aria-label={title}
      onClose={onClose}
      onClick={(e) => e.target === ref.current && onClose()}
    >
      <div className="dialog-head">
        <h2>{title}</h2>
        <span className="grow" />
        <button className="ghost" onClick={onClose} aria-label="Close" title="Close (Esc)">
          ✕
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** A button that copies `text` to the clipboard and says so for a moment. */
export function CopyButton({ text, label = "Copy", testId }: { text: string; label?: string; testId?: string }) {
  const [done, setDone] = useState<"ok" | "failed" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone("ok");
    } catch {
      setDone(copyByHand(text) ? "ok" : "failed");
    }
    setTimeout(() => setDone(null), 1500);
  };
  return (
    <button className="ghost copy" onClick={copy} data-testid={testId} aria-live="polite">
      {done === "ok" ? "Copied" : done === "failed" ? "Select and copy" : label}
    </button>
  );
}

function copyByHand(text: string): boolean {
  // Without the async clipboard (non-secure origins), a selected textarea and execCommand still work.
  const area = document.createElement("textarea");
  area.value = text;
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}
