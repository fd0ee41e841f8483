// The live conversation: user bubbles, and each assistant message as its cards in arrival order.
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Markdown } from "./markdown.js";
import { ErrorCard, EvolutionCard, ReasoningCard, StepsCard, ToolCard } from "./cards.js";
import { isFinished, stage } from "./lib/stream.js";

const STILL_WORKING_MS = 10_000;

function StagePill({ turn, t, lastEventAt }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const s = stage(turn);
  if (!s) return null;
  return html`<div class="stage-row">
    <span class="stage-pill"><span class="pulse" aria-hidden="true"></span>${t(`stage.${s}`)}</span>
    ${now - lastEventAt > STILL_WORKING_MS && html`<span class="muted">${t("stage.still")}</span>`}
  </div>`;
}

function TransportError({ error, t }) {
  return html`<div class="banner error" role="alert" data-testid="chat-error">
    <${Icon} name="triangle-alert" />
    <div>
      <p>${t("chat.sendFailed")} ${error.message || ""}</p>
      <details>
        <summary>${t("error.details")}</summary>
        <pre>${JSON.stringify({ status: error.status ?? null, code: error.code ?? null, message: error.message || "" }, null, 2)}</pre>
      </details>
    </div>
  </div>`;
}

function Item({ item, t, locale, live, running, onOpenSlice }) {
  switch (item.kind) {
    case "steps":
      return html`<${StepsCard} item=${item} t=${t} running=${running} />`;
    case "reasoning":
      return html`<${ReasoningCard} item=${item} t=${t} live=${live} />`;
    case "tool":
      return html`<${ToolCard} item=${item} t=${t} locale=${locale} onOpenSlice=${onOpenSlice} />`;
    case "evolution":
      return html`<${EvolutionCard} item=${item} t=${t} />`;
    case "error":
      return html`<${ErrorCard} item=${item} t=${t} />`;
    case "text":
      return html`<${Markdown} text=${item.text} t=${t} class="reply" />`;
    default:
      return null;
  }
}

function Assistant({ message, t, locale, onOpenSlice }) {
  const { turn } = message;
  const running = !isFinished(turn);
  return html`<div class="msg assistant" data-testid="msg-assistant" data-status=${message.error ? "error" : turn.status}>
    ${running && !message.error && html`<${StagePill} turn=${turn} t=${t} lastEventAt=${message.lastEventAt} />`}
    ${turn.items.map(
      (item) => html`<div class="item" key=${item.id}>
        <${Item} item=${item} t=${t} locale=${locale} live=${message.live} running=${running} onOpenSlice=${onOpenSlice} />
      </div>`,
    )}
    ${turn.status === "interrupted" && html`<p class="muted small">${turn.reason || t("chat.stopped")}</p>`}
    ${message.error && html`<${TransportError} error=${message.error} t=${t} />`}
  </div>`;
}

/** Every message of the live conversation. */
export function ChatView({ messages, t, locale, onOpenSlice }) {
  return html`<div class="chat column" data-testid="chat">
    ${messages.map((m) =>
      m.role === "user"
        ? html`<div class="msg user" key=${m.id} data-testid="msg-user"><div class="bubble">${m.text}</div></div>`
        : html`<${Assistant} key=${m.id} message=${m} t=${t} locale=${locale} onOpenSlice=${onOpenSlice} />`,
    )}
  </div>`;
}
