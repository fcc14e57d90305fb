// Light and dark themes: the choice is kept in localStorage, the default follows the system.
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
        setTheme(next);
      }}
    >
      {theme === "dark" ? "☀" : "☾"}
    </button>
  );
}
