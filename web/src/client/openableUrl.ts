// Which URLs a URL elicitation may open: http(s) with a host. A `javascript:` URL would run in this page's
// window, `data:` and `file:` ones render or read local things; those are shown as text and never opened.
export function openableUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
  } catch {
    return false;
  }
}
