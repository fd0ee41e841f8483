// "Evolve now": the card and direction passes on request, shared by the card page and the How it
// learns page. POST /api/evolution/run starts a background run (202 with its id); the button polls
// GET /api/evolution/run/{id} until it is done (the report) or failed (the reason).
import { useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { api } from "./api.js";

const POLL_MS = 1000;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start a run and wait for its end: the report when done; throws with the reason when it failed. */
export async function runEvolveNow(pollMs = POLL_MS) {
  let run = await api.post("/api/evolution/run");
  while (run.status === "running") {
    await wait(pollMs);
    run = await api.get(`/api/evolution/run/${encodeURIComponent(run.run_id)}`);
  }
  if (run.status !== "done" || !run.report) throw new Error(run.error || "");
  return run.report;
}

/** The button: busy while the passes run, then what changed (or why nothing did). `onChanged`
 * runs after a run that committed (the page reloads what it shows). */
export function EvolveNow({ t, busy, readOnly, onChanged }) {
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState(null);
  const click = async () => {
    setRunning(true);
    setResult(null);
    try {
      const report = await runEvolveNow();
      if (report.committed && onChanged) await onChanged();
      setResult({ ok: true, lines: (report.message || "").split("\n") });
    } catch (err) {
      setResult({ ok: false, lines: [`${t("card.failed")} ${(err && err.message) || ""}`] });
    } finally {
      setRunning(false);
    }
  };
  return html`<section class="panel card-section" data-testid="evo-now">
    <div class="page-head">
      <p class="muted">${readOnly ? t("evo.nowReadOnly") : t("evo.nowHint")}</p>
      <button type="button" class="primary-btn" data-testid="evo-now-button" aria-busy=${running ? "true" : "false"}
        disabled=${busy || running || readOnly} onClick=${click}>
        <${Icon} name="sparkles" size=${14} />${running ? t("evo.nowRunning") : t("evo.now")}
      </button>
    </div>
    <div class=${result && !result.ok ? "save-status failed" : "save-status"} role="status" data-testid="evo-now-result">
      ${running ? t("evo.nowRunningLong") : result && result.lines.map((line) => html`<p>${line}</p>`)}
    </div>
  </section>`;
}
