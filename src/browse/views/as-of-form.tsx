/**
 * "The page as of a date": year, month and day, sent with GET to
 * `/view/{title}`, which answers a redirect to the revision current then
 * (the TimeGate's rule). Plain HTML: it works without JavaScript, and the
 * browser's own checks (required, min, max) come before the server's.
 */
import type { FC } from "hono/jsx";
import { viewUrl } from "./links.ts";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/** `idPrefix` keeps the fields' ids unique when a page holds two forms. */
export const AsOfForm: FC<{ pageKey: string; idPrefix: string; legend: string; year?: number }> = ({
  pageKey,
  idPrefix,
  legend,
  year,
}) => (
  <form class="asof" method="get" action={viewUrl(pageKey)}>
    <fieldset>
      <legend>{legend}</legend>
      <div>
        <label for={`${idPrefix}-year`}>Year</label>
        <input
          type="number"
          id={`${idPrefix}-year`}
          name="year"
          min="1"
          max="9999"
          required
          inputmode="numeric"
          value={year === undefined ? "" : String(year)}
        />
      </div>
      <div>
        <label for={`${idPrefix}-month`}>Month</label>
        <select id={`${idPrefix}-month`} name="month">
          <option value="">Any (from January)</option>
          {MONTHS.map((name, i) => (
            <option value={String(i + 1)}>{name}</option>
          ))}
        </select>
      </div>
      <div>
        <label for={`${idPrefix}-day`}>Day</label>
        <input type="number" id={`${idPrefix}-day`} name="day" min="1" max="31" inputmode="numeric" />
      </div>
      <button type="submit">Show</button>
    </fieldset>
    <p class="hint">The revision current at the start of that day (UTC): the newest made by then.</p>
  </form>
);
