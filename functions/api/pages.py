"""Built-in HTML pages used when web/ does not provide its own (the UI part styles the real ones)."""

from __future__ import annotations

SIGN_IN_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Previously</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; min-height: 100vh;
         display: grid; place-items: center; background: #f6f6f4; color: #222; }
  form { width: min(22rem, 90vw); display: grid; gap: .75rem; }
  h1 { font-weight: 300; margin: 0 0 .5rem; }
  input, button { font: inherit; padding: .6rem .75rem; border-radius: .5rem; border: 1px solid #bbb; }
  button { background: #222; color: #fff; border-color: #222; cursor: pointer; }
  #message { min-height: 1.5em; color: #a33; margin: 0; }
  @media (prefers-color-scheme: dark) { body { background: #161616; color: #eee; } }
</style>
</head>
<body>
<form id="sign-in" data-testid="sign-in-form">
  <h1>Previously</h1>
  <label for="key">Access key</label>
  <input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
  <button type="submit">Sign in</button>
  <p id="message" role="alert"></p>
</form>
<script>
  const form = document.getElementById("sign-in");
  const message = document.getElementById("message");
  function target() {
    const next = new URLSearchParams(location.search).get("next") || "/";
    return next.startsWith("/") && !next.startsWith("//") ? next : "/";
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const key = document.getElementById("key").value;
    try {
      const res = await fetch("/api/auth/sign-in", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key }),
        credentials: "same-origin",
      });
      if (res.ok) { location.assign(target()); return; }
      const body = await res.json().catch(() => ({}));
      message.textContent = body.message || "Sign-in failed.";
    } catch (err) {
      message.textContent = "The server could not be reached.";
    }
  });
</script>
</body>
</html>
"""

NO_UI_HTML = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Previously</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Previously</h1>
<p>The server is running, but the web interface is not installed in <code>web/</code>.</p>
<p>The API is up: see <a href="/docs">/docs</a>, or try <code>previously chat "hello"</code>.</p>
</body>
</html>
"""
