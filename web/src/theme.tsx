// Light and dark themes: the choice is kept in the `theme` cookie, which the server writes into the page's
// <html data-theme> (no storage read before the first paint: public/prime.js), and in localStorage (as
// before); the default follows the system.
import { useState } from "react";

export function ThemeToggle() {
  const [theme, setTheme] = useState(document.documentElement.dataset.theme ?? "light");
  const next = theme === "dark" ? "light" : "dark";
  return (
    <button
      className="ghost"
      title={`Switch to the ${next} theme`}
      aria-label={`Switch to the ${next} theme`}
      data-testid="theme-toggle"
      onClick={() => {
        document.documentElement.dataset.theme = next;
        localStorage.setItem("theme", next);
        document.cookie = `theme=${next}; path=/; max-age=31536000; samesite=strict`;
        setTheme(next);
      }}
    >
      {theme === "dark" ? "☀" : "☾"}
    </button>
  );
}
