/** The content models the archive accepts, and the media type each is served as. */
export const CONTENT_MODELS = {
  wikitext: { format: "text/x-wiki", contentType: "text/x-wiki; charset=utf-8" },
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
