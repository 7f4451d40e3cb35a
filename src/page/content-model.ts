/** The content models the archive accepts, the format MediaWiki records for each, and the media type each is served as. */
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

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/**
 * The Content-Type a revision is served with: wikitext as plain text, HTML
 * as HTML, any other model by the format recorded with it (all revision
 * text is UTF-8), falling back to the model's own type.
 *
 * @example
 * servedContentType("wikitext", "text/x-wiki");   // "text/plain; charset=utf-8"
 * servedContentType("css", "text/css");           // "text/css; charset=utf-8"
 */
export function servedContentType(model: string, format: string | undefined): string {
  if (model === "wikitext" || model === "html") return CONTENT_MODELS[model].contentType;
  if (format && MEDIA_TYPE.test(format)) return `${format.toLowerCase()}; charset=utf-8`;
  return isContentModel(model) ? CONTENT_MODELS[model].contentType : "application/octet-stream";
}
