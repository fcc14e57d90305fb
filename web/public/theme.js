// Apply the saved theme before the first paint (no flash of the wrong theme).
document.documentElement.dataset.theme =
  localStorage.getItem("theme") || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
