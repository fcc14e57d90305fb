// A tool result shown by content type: text, image, audio, resource_link, embedded resource,
// structuredContent; a tool's own failure (isError) is marked apart from protocol errors.
import { JsonView, allExpanded, defaultStyles } from "react-json-view-lite";

type Block = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
};

export function JsonBox({ value }: { value: unknown }) {
  if (value === null || typeof value !== "object") return <pre className="raw-text">{JSON.stringify(value)}</pre>;
  return (
    <div className="json">
      <JsonView data={value as object} shouldExpandNode={allExpanded} style={defaultStyles} />
    </div>
  );
}

function ContentBlock({ block }: { block: Block }) {
  switch (block.type) {
    case "text":
      return <pre className="raw-text content-text">{block.text}</pre>;
    case "image":
      return <img className="content-image" alt="image content" src={`data:${block.mimeType};base64,${block.data}`} />;
    case "audio":
      return <audio controls src={`data:${block.mimeType};base64,${block.data}`} />;
    case "resource_link":
      return (
        <div className="content-link">
          resource link: <code>{block.uri}</code> {block.name && <span className="muted">({block.name})</span>}
        </div>
      );
    case "resource":
      return (
        <div className="content-resource">
          <div>
            embedded resource <code>{block.resource?.uri}</code>{" "}
            <span className="muted">{block.resource?.mimeType}</span>
          </div>
          {block.resource?.text !== undefined ? (
            <pre className="raw-text">{block.resource.text}</pre>
          ) : (
            <span className="muted">{(block.resource?.blob ?? "").length} base64 characters</span>
          )}
        </div>
      );
    default:
      return <JsonBox value={block} />;
  }
}

/** A whole response message: protocol error, tool error (isError) or result. */
export function ResultView({ response }: { response: { result?: unknown; error?: unknown } }) {
  if (response.error) {
    return (
      <div className="result protocol-error" data-testid="protocol-error">
        <strong>Protocol error</strong>
        <JsonBox value={response.error} />
      </div>
    );
  }
  const result = (response.result ?? {}) as { content?: Block[]; structuredContent?: unknown; isError?: boolean };
  return (
    <div className={`result ${result.isError ? "tool-error" : "tool-ok"}`} data-testid="result">
      {result.isError && <strong className="error">Tool error (isError)</strong>}
      {Array.isArray(result.content) ? (
        result.content.map((b, i) => <ContentBlock key={i} block={b} />)
      ) : (
        <JsonBox value={response.result} />
      )}
      {result.structuredContent !== undefined && (
        <>
          <div className="muted small">structuredContent</div>
          <JsonBox value={result.structuredContent} />
        </>
      )}
    </div>
  );
}
