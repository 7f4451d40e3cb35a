/**
 * The content models the archive accepts, the format MediaWiki records for each, and the media type each is served as.
 */
export const CONTENT_MODELS = {
  // Served as plain text: no browser renders text/x-wiki, most download it; the model goes in x-content-model.
  wikitext: { format: "text/x-wiki", contentType: "text/plain; charset=utf-8" },
  html: { format: "text/html", contentType: "text/html; charset=utf-8" },
  css: { format: "text/css", contentType: "text/css; charset=utf-8" },
  javascript: { format: "text/javascript", contentType: "text/javascript; charset=utf-8" },
  json: { format: "application/json", contentType: "application/json; charset=utf-8" },
  text: { format: "text/plain", contentType: "text/plain; charset=utf-8" },
} as const;

export type ContentModel = keyof typeof CONTENT_MODELS;

export function isContentModel(model: string): model is ContentModel {
  return Object.hasOwn(CONTENT_MODELS, model);
}

/**
 * The formats MediaWiki allows for each model (its ContentHandler's
 * getSupportedFormats): one each. A writer cannot pick the Content-Type a
 * revision is served with by naming another format (a `text` page as
 * `image/svg+xml`, a `css` page as `text/html`): the write API and the
 * importer refuse it, naming what is allowed.
 */
export function allowedFormats(model: ContentModel): readonly string[] {
  return [CONTENT_MODELS[model].format];
}

/** Why `format` is refused for `model`, or null when it is allowed (absent means the model's own). */
export function formatRefusal(model: ContentModel, format: string | undefined): string | null {
  if (format === undefined) return null;
  const allowed = allowedFormats(model);
  return allowed.includes(format)
    ? null
    : `format ${JSON.stringify(format.slice(0, 64))} is not allowed for content model ${model}; allowed: ${allowed.join(", ")}`;
}

/**
 * The Content-Type a revision is served with: its model's, whatever format
 * was recorded with it (all revision text is UTF-8). Revisions stored before
 * formats were checked are served by their model too.
 *
 * @example
 * servedContentType("wikitext", "text/x-wiki");   // "text/plain; charset=utf-8"
 * servedContentType("text", "text/html");         // "text/plain; charset=utf-8"
 */
export function servedContentType(model: string, _format?: string): string {
  return isContentModel(model) ? CONTENT_MODELS[model].contentType : "application/octet-stream";
}
