// The raw text of a message in CodeMirror 6 (read-only, JSON highlighting); loaded on demand.
import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorView } from "@uiw/react-codemirror";

export default function RawView({ text, dark }: { text: string; dark: boolean }) {
  return (
    <CodeMirror
      value={text}
      editable={false}
      readOnly
      basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: false }}
      extensions={[json(), EditorView.lineWrapping]}
      theme={dark ? "dark" : "light"}
      className="raw-editor"
    />
  );
}
