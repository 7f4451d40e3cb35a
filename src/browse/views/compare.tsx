/**
 * What changed between two revisions, line by line: a table with each line's
 * number in both revisions, a sign (+ or −, spelled out for screen readers,
 * so colour is never the only cue) and the text, changed words marked with
 * <ins> and <del>. Over a limit, it says which and links the raw revisions.
 */
import type { FC } from "hono/jsx";
import { formatBytes, formatCount } from "../../ui/format.ts";
import type { CompareAnswer, Part, RevisionSide, Row } from "../../compare/diff.ts";
import { historyUrl, revisionUrl } from "./links.ts";

/** The origin's answer for the pair, and the page it belongs to. */
export interface CompareModel extends CompareAnswer {
  key: string;
  title: string;
}

const Parts: FC<{ parts: Part[]; mark: "ins" | "del" }> = ({ parts, mark }) => (
  <>{parts.map((p) => (p.changed ? mark === "ins" ? <ins>{p.text}</ins> : <del>{p.text}</del> : p.text))}</>
);

const DiffRow: FC<{ row: Row }> = ({ row }) => {
  switch (row.kind) {
    case "gap":
      return (
        <tr class="gap">
          <td class="ln"></td>
          <td class="ln"></td>
          <td class="sign"></td>
          <td class="text">{`… ${formatCount(row.lines)} unchanged line${row.lines === 1 ? "" : "s"} …`}</td>
        </tr>
      );
    case "same":
      return (
        <tr>
          <td class="ln">{String(row.old)}</td>
          <td class="ln">{String(row.new)}</td>
          <td class="sign"></td>
          <td class="text">{row.text}</td>
        </tr>
      );
    case "del":
      return (
        <tr class="del">
          <td class="ln">{String(row.old)}</td>
          <td class="ln"></td>
          <td class="sign">
            <span aria-hidden="true">−</span>
            <span class="visually-hidden">removed</span>
          </td>
          <td class="text">{row.parts ? <Parts parts={row.parts} mark="del" /> : row.text}</td>
        </tr>
      );
    case "add":
      return (
        <tr class="add">
          <td class="ln"></td>
          <td class="ln">{String(row.new)}</td>
          <td class="sign">
            <span aria-hidden="true">+</span>
            <span class="visually-hidden">added</span>
          </td>
          <td class="text">{row.parts ? <Parts parts={row.parts} mark="ins" /> : row.text}</td>
        </tr>
      );
  }
};

const Side: FC<{ label: string; page: string; side: RevisionSide }> = ({ label, page, side }) => (
  <div>
    <dt>{label}</dt>
    <dd>
      <a href={revisionUrl(page, side.id)}>{`revision ${side.id}`}</a>
      {side.timestamp ? `, ${side.timestamp}` : ""}, {formatBytes(side.bytes)}
    </dd>
  </div>
);

export const CompareView: FC<{ model: CompareModel }> = ({ model }) => {
  const { key, title, from, to, result } = model;
  return (
    <>
      <h1>
        <bdi>{title}</bdi>
        {`: revision ${from.id} compared with ${to.id}`}
      </h1>
      <dl class="facts">
        <Side label="From" page={key} side={from} />
        <Side label="To" page={key} side={to} />
      </dl>
      {result.kind === "diff" ? (
        <section aria-labelledby="diff-heading">
          <h2 id="diff-heading">
            {result.added + result.removed === 0
              ? "No differences"
              : `${formatCount(result.removed)} lines removed, ${formatCount(result.added)} added`}
          </h2>
          {result.truncated ? (
            <p class="alert" role="status">
              The differences are longer than this page shows; the table stops early. Compare the raw revisions for the
              rest.
            </p>
          ) : null}
          {result.rows.length > 0 ? (
            <div class="scroll">
              <table class="diff">
                <caption class="visually-hidden">{`Lines of revision ${from.id} and revision ${to.id}, changed lines marked`}</caption>
                <thead>
                  <tr>
                    <th scope="col" class="ln">{`Line in ${from.id}`}</th>
                    <th scope="col" class="ln">{`Line in ${to.id}`}</th>
                    <th scope="col" class="sign">
                      <span class="visually-hidden">Change</span>
                      <span aria-hidden="true">±</span>
                    </th>
                    <th scope="col">Text</th>
                  </tr>
                </thead>
                <tbody>
                  {result.rows.map((row) => (
                    <DiffRow row={row} />
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>
      ) : (
        <section aria-labelledby="diff-heading">
          <h2 id="diff-heading">Too big to compare here</h2>
          <p class="alert" role="status">
            {result.detail}
            {result.kind === "too_big" ? (
              <>
                {" "}
                (limit <code>{result.limit}</code>)
              </>
            ) : null}
          </p>
          <p>
            Open the raw revisions instead: <a href={revisionUrl(key, from.id)}>{`revision ${from.id}`}</a> and{" "}
            <a href={revisionUrl(key, to.id)}>{`revision ${to.id}`}</a>, and compare them with a local tool.
          </p>
        </section>
      )}
      <p>
        <a href={historyUrl(key)}>
          History of <bdi>{title}</bdi>
        </a>
      </p>
    </>
  );
};
