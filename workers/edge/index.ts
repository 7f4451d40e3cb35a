/**
 * Entry point of the edge worker (`main` in wrangler.toml). Durable Object
 * classes are re-exported from here as they land in `durable-objects/`.
 */
import "../../src/codec/install-worker.ts";
import { app } from "./app.ts";

export { PageStore } from "../../durable-objects/page-store.ts";

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
