// The card's history (GET /api/card/history): every kept version, newest first, each with when
// and by what it was made and one line of what changed, and a Restore button (itself undoable).
// Loaded when the card page first opens it (lazy.js), outside the first load.
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { api } from "./api.js";
import { isoToMs, shortMoment } from "./lib/time.js";

function Change({ v, t }) {
  if (!v.readable) return html`<span class="muted">${t("card.hist.damaged")}</span>`;
  if (v.added === null) return html`<span class="muted">${t("card.hist.earliest")}</span>`;
  if (!v.sample) return html`<span class="muted">${t("card.hist.same")}</span>`;
  const sign = v.sample.type === "added" ? "+" : "−";
  return html`<span class="mono small">+${v.added} −${v.removed}</span>
    <span class=${`hist-line ${v.sample.type}`}>${sign} ${v.sample.text}</span>`;
}

/** The history panel; `version` changes whenever the live card does, so the list follows it. */
export function CardHistory({ t, busy, version, onRestore }) {
  const [data, setData] = useState(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    api.get("/api/card/history?limit=50").then(setData, () => setFailed(true));
  }, [version]);
  if (failed) return html`<p class="empty-state" role="alert">${t("card.loadFailed")}</p>`;
  if (!data) return html`<div class="skeleton" aria-busy="true"><span></span></div>`;
  const older = data.total - (data.versions.length - 1);
  return html`<section class="panel card-history" data-testid="card-history" aria-label=${t("card.history")}>
    <h2 class="panel-heading">${t("card.history")}</h2>
    ${data.versions.length === 1 && html`<p class="muted">${t("card.hist.empty")}</p>`}
    <ol class="hist-list">
      ${data.versions.map(
        (v) => html`<li class="hist-row" data-testid="card-version" data-id=${v.id || "live"}>
          <div class="hist-what">
            <span class="small">
              ${v.at ? shortMoment(isoToMs(v.at), t.locale) : t("card.hist.unknown")}
              ${v.by && html` · ${t(`card.hist.by.${v.by}`)}`}
            </span>
            <${Change} v=${v} t=${t} />
          </div>
          ${v.id === null
            ? html`<span class="badge">${t("card.hist.current")}</span>`
            : html`<button type="button" class="ghost-btn" data-testid="card-restore" disabled=${busy || !v.readable}
                onClick=${() => onRestore(v.id)}>${t("card.hist.restore")}</button>`}
        </li>`,
      )}
    </ol>
    ${older > 0 && html`<p class="muted small">${t("card.hist.more", { n: older })}</p>`}
  </section>`;
}
