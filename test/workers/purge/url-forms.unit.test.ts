/**
 * The routes and the purge canonicaliser read one URL grammar
 * (src/http/url-forms.ts): the Worker registers a GET route for exactly its
 * forms (outside the API, the dashboard and /healthz), the router and the
 * canonicaliser choose the same form for every form's URL, and the forms the
 * canonicaliser keys are the ones whose answers the tiers keep.
 */
import { describe, expect, it } from "vitest";
import { app } from "../../../workers/app.ts";
import { matchUrlForm, URL_FORMS, type UrlFormName } from "../../../src/http/url-forms.ts";
import { keyOfUrl, ServedHosts } from "../../../src/purge/canonical.ts";

/** Routes that are not a reader's URL forms: the JSON API, the operators' dashboard, the health check. */
const NOT_READER = [/^\/api(\/|$)/, /^\/dashboard(\/|$)/, /^\/healthz$/];

/** A value for every param a form may name; a form with a param missing here fails the test below. */
const SAMPLE: Record<string, string> = {
  title: "Main_Page",
  revid: "42",
  range: "41...42",
  format: "json",
  timestamp: "20200101000000",
};

const HOST = "archive.example";

function urlOf(form: UrlFormName): string {
  const path = URL_FORMS[form].replace(/:(\w+)/g, (_, name: string) => {
    const value = SAMPLE[name];
    if (value === undefined) throw new Error(`no sample value for :${name} (form ${form})`);
    return value;
  });
  return `https://${HOST}${path}`;
}

/** The path of the first GET route (not middleware) the Worker's router runs for `path`. */
function routedForm(path: string): string | undefined {
  const [matched] = app.router.match("GET", path);
  const routes = matched.map(([[, route]]) => route);
  return routes.find((r) => r.method === "GET")?.path;
}

const forms = Object.keys(URL_FORMS) as UrlFormName[];

describe("one URL grammar for the routes and the purge canonicaliser", () => {
  it("the Worker registers a GET route for every form, and for no reader URL outside them", () => {
    const registered = new Set(
      app.routes.filter((r) => r.method === "GET" && !NOT_READER.some((re) => re.test(r.path))).map((r) => r.path),
    );
    expect([...registered].sort()).toEqual(Object.values(URL_FORMS).sort());
  });

  it.each(forms)("the router and the canonicaliser take a %s URL as that form", (form) => {
    const url = new URL(urlOf(form));
    expect(routedForm(url.pathname)).toBe(URL_FORMS[form]);
    expect(matchUrlForm(url.pathname.split("/").slice(1))?.form).toBe(form);
  });

  it("the canonicaliser keys exactly the forms whose answers the tiers keep", () => {
    const served = new ServedHosts(HOST);
    const keyed = forms.filter((form) => keyOfUrl(urlOf(form), served).ok);
    expect(keyed.sort()).toEqual(["compare", "export", "history", "latest", "revision", "timemap"]);
    for (const form of forms.filter((f) => !keyed.includes(f)))
      expect(keyOfUrl(urlOf(form), served)).toMatchObject({
        ok: false,
        dropped: expect.stringMatching(/^never cached/),
      });
  });

  it("a URL of no form is no route's and never cached", () => {
    const served = new ServedHosts(HOST);
    for (const path of ["/page/Main_Page/42/extra", "/page/", "/timemap/json", "/wiki/Main_Page"]) {
      expect(matchUrlForm(path.split("/").slice(1))).toBeNull();
      expect(routedForm(path)).toBeUndefined();
      expect(keyOfUrl(`https://${HOST}${path}`, served)).toMatchObject({ ok: false });
    }
  });
});
