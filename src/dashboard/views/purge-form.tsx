/**
 * The one purge form: every kind (URLs, cache tags, URL prefixes, hosts,
 * everything), soft or hard. After a refusal it comes back filled in, the
 * problem announced (role=alert) and tied to the items field by
 * aria-describedby, each refused item named by its line.
 */
import type { FC } from "hono/jsx";
import { PURGE_KINDS, type PurgeFormValues } from "../purge-form.ts";
import { CsrfField } from "./layout.tsx";

export interface PurgeRefusal {
  message: string;
  /** Per-item errors, `line` counted from 1 in what the operator typed. */
  items: Array<{ line: number | null; item: string; reason: string }>;
}

/** A kind's label inside a sentence: "Cache tags" → "cache tags", but "URLs" and "URL prefixes" keep their capitals. */
const midSentence = (label: string) => label.replace(/^[A-Z][a-z]/, (s) => s.toLowerCase());

export const EMPTY_PURGE: PurgeFormValues = { kind: "files", items: "", soft: false };

export const PurgeForm: FC<{ csrf: string; values: PurgeFormValues; refusal?: PurgeRefusal | null }> = ({
  csrf,
  values,
  refusal,
}) => (
  <section aria-labelledby="purge-heading">
    <h1 id="purge-heading">Purge</h1>
    {refusal ? (
      <div id="purge-errors" class="alert" role="alert">
        <p>
          <strong>{refusal.message}</strong>
        </p>
        {refusal.items.length > 0 ? (
          <ul>
            {refusal.items.map((e) => (
              <li>
                {e.line === null ? "" : `Line ${e.line}: `}
                <code>{e.item}</code>: {e.reason}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    ) : null}
    <form class="stack" method="post" action="/dashboard/purges">
      <CsrfField token={csrf} />
      <fieldset>
        <legend>What to purge</legend>
        {PURGE_KINDS.map((k) => (
          <label>
            <input type="radio" name="kind" value={k.value} checked={values.kind === k.value} /> {k.label}
          </label>
        ))}
      </fieldset>
      <div>
        <label for="items">Items, one per line</label>
        <p class="hint" id="items-hint">
          For example{" "}
          {PURGE_KINDS.filter((k) => k.example).map((k, i) => (
            <>
              {i > 0 ? "; " : ""}
              {midSentence(k.label)}: <code>{k.example}</code>
            </>
          ))}
          . Not needed for everything.
        </p>
        <textarea
          id="items"
          name="items"
          rows={6}
          spellcheck={false}
          aria-describedby={refusal ? "items-hint purge-errors" : "items-hint"}
          aria-invalid={refusal ? "true" : undefined}
        >
          {values.items}
        </textarea>
      </div>
      <div>
        <input type="checkbox" id="soft" name="soft" value="1" checked={values.soft} aria-describedby="soft-hint" />{" "}
        <label for="soft">Soft purge</label>
        <p class="hint" id="soft-hint">
          Marks entries stale: they are served while revalidating, never once something newer has answered.
        </p>
      </div>
      <button type="submit">Purge</button>
    </form>
  </section>
);
