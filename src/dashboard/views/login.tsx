/** The login page: an API token (any scope; purging needs the purge scope), or Cloudflare Access when configured. */
import type { FC } from "hono/jsx";

export const LoginView: FC<{ error?: string | null; access: boolean }> = ({ error, access }) => (
  <section aria-labelledby="login-heading">
    <h1 id="login-heading">Log in</h1>
    {error ? (
      <p id="token-error" class="alert" role="alert">
        {error}
      </p>
    ) : null}
    <form class="stack" method="post" action="/dashboard/login">
      <div>
        <label for="token">API token</label>
        <p class="hint" id="token-hint">
          A token from the API_TOKENS secret; <code>npm start</code> prints where the local one is.
        </p>
        <input
          type="password"
          id="token"
          name="token"
          required
          autocomplete="current-password"
          aria-describedby={error ? "token-hint token-error" : "token-hint"}
          aria-invalid={error ? "true" : undefined}
        />
      </div>
      <button type="submit">Log in</button>
    </form>
    {access ? <p>Behind Cloudflare Access you are logged in as your Access identity without a token.</p> : null}
  </section>
);
