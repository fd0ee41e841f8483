// The live conversation: user bubbles, and each assistant message as its cards in arrival order.
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Markdown } from "./markdown.js";
import { ErrorCard, EvolutionCard, ReasoningCard, StepsCard, ToolCard } from "./cards.js";
import { isFinished, replyText, stage } from "./lib/stream.js";
import { Thumbs } from "./attachments.js";

const STILL_WORKING_MS = 10_000;

function StagePill({ turn, t, lastEventAt }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const s = stage(turn);
  if (!s) return null;
  // Said by a card already (docs/UI.md, D21): the pill would repeat it.
  const told = s === "reasoning" || (s === "preparing" && turn.items.some((it) => it.kind === "steps"));
  const still = now - lastEventAt > STILL_WORKING_MS;
  if (told && !still) return null;
  return html`<div class="stage-row">
    ${!told && html`<span class="stage-pill" data-testid="stage-pill"><span class="pulse" aria-hidden="true"></span>${t(`stage.${s}`)}</span>`}
    ${still && html`<span class="muted">${t("stage.still")}</span>`}
  </div>`;
}

function TransportError({ error, t }) {
  return html`<div class="banner error" role="alert" data-testid="chat-error">
    <${Icon} name="triangle-alert" />
    <div>
      <p>${t("chat.sendFailed")} ${error.code === "network" ? t("chat.unreachable") : error.message || ""}</p>
      <details>
        <summary>${t("error.details")}</summary>
        <pre>${JSON.stringify({ status: error.status ?? null, code: error.code ?? null, message: error.message || "" }, null, 2)}</pre>
      </details>
    </div>
  </div>`;
}

function Item({ item, t, locale, live, running, replying, onOpenSlice }) {
  switch (item.kind) {
    case "steps":
      return html`<${StepsCard} item=${item} t=${t} running=${running} replying=${replying} />`;
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
    case "notice":
      return html`<p class="banner" role="note" data-testid="attach-unseen"><${Icon} name="circle-alert" size=${14} />${t("attach.unseen")}</p>`;
    default:
      return null;
  }
}

/** Copy a finished reply; answer the last one again. */
function ReplyActions({ message, last, t, onResend }) {
  const [copied, setCopied] = useState(false);
  const text = replyText(message.turn);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => (setCopied(true), setTimeout(() => setCopied(false), 1500)),
      () => {},
    );
  return html`<div class="msg-actions" data-testid="reply-actions">
    ${text && html`<button type="button" class="link-btn" data-testid="copy-reply" onClick=${copy}>
      <${Icon} name=${copied ? "check" : "copy"} size=${12} />${copied ? t("chat.copied") : t("chat.copy")}
    </button>`}
    ${last && onResend && html`<button type="button" class="link-btn" data-testid="regenerate" onClick=${() => onResend(null)}>
      <${Icon} name="history" size=${12} />${t("chat.regenerate")}
    </button>`}
  </div>`;
}

/** The last message, with an inline editor to change and send it again. */
function UserMessage({ message, editable, t, onResend }) {
  const [draft, setDraft] = useState(null);
  if (draft === null) {
    return html`<div class="msg user" data-testid="msg-user" data-earlier=${message.earlier ? "" : undefined}><${Thumbs} images=${message.images} t=${t} testid="msg-image" /><div class="bubble">${message.text}</div>
      ${editable && html`<button type="button" class="link-btn msg-edit" data-testid="edit-message" onClick=${() => setDraft(message.text)}>
        <${Icon} name="pencil" size=${12} />${t("chat.edit")}
      </button>`}</div>`;
  }
  const submit = (e) => {
    e.preventDefault();
    if (draft.trim()) onResend(draft.trim());
  };
  return html`<form class="msg user msg-editing" data-testid="msg-user" onSubmit=${submit}>
    <textarea aria-label=${t("chat.edit")} rows="3" value=${draft} onInput=${(e) => setDraft(e.currentTarget.value)}></textarea>
    <div class="form-actions">
      <button type="button" class="ghost-btn" onClick=${() => setDraft(null)}>${t("forget.cancel")}</button>
      <button type="submit" class="primary-btn" data-testid="edit-send" disabled=${!draft.trim()}>${t("chat.editSend")}</button>
    </div>
  </form>`;
}

function Assistant({ message, t, locale, onOpenSlice, last, onResend }) {
  const { turn } = message;
  const running = !isFinished(turn);
  // The answer has begun: the steps card stops naming its "Thinking" step.
  const replying = turn.items.some((it) => /^(text|reasoning|tool)$/.test(it.kind));
  return html`<div class="msg assistant" data-testid="msg-assistant" data-status=${message.error ? "error" : turn.status}
    data-earlier=${message.earlier ? "" : undefined}>
    ${running && !message.error && html`<${StagePill} turn=${turn} t=${t} lastEventAt=${message.lastEventAt} />`}
    ${turn.items.map(
      (item) => html`<div class="item" key=${item.id}>
        <${Item} item=${item} t=${t} locale=${locale} live=${message.live} running=${running} replying=${replying} onOpenSlice=${onOpenSlice} />
      </div>`,
    )}
    ${turn.status === "interrupted" && html`<p class="muted small">${turn.reason || t("chat.stopped")}</p>`}
    ${message.error && html`<${TransportError} error=${message.error} t=${t} />`}
    ${!running && !message.error && html`<${ReplyActions} message=${message} last=${last} t=${t} onResend=${onResend} />`}
  </div>`;
}

/** Every message of the live conversation; the last exchange can be answered again or edited. */
export function ChatView({ messages, t, locale, onOpenSlice, running = false, onResend = null }) {
  const [failure, setFailure] = useState("");
  const n = messages.length;
  const resend = onResend && ((text) => (setFailure(""), onResend(text).catch((err) => setFailure(err.message || ""))));
  // Exchanges from before the page was opened (a reload): said once, above them.
  const earlier = n > 0 && messages[0].earlier;
  return html`<div class="chat column" data-testid="chat">
    ${earlier && html`<p class="muted small earlier-note" data-testid="earlier-note">${t("chat.earlier")}</p>`}
    ${messages.map((m, i) =>
      m.role === "user"
        ? html`<${UserMessage} key=${m.id} message=${m} t=${t} editable=${Boolean(resend) && !running && i === n - 2} onResend=${resend} />`
        : html`<${Assistant} key=${m.id} message=${m} t=${t} locale=${locale} onOpenSlice=${onOpenSlice}
            last=${!running && i === n - 1} onResend=${resend} />`,
    )}
    ${failure && html`<p class="hint error" role="alert" data-testid="resend-failed">${t("chat.resendFailed")} ${failure}</p>`}
  </div>`;
}
