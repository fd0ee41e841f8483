"""The server's words in English (keys as in web/app/i18n/en.js's style; see core/i18n)."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # The arrival briefing's suggestion chips (core/actions/briefing.py).
    "briefing.continue.label": "Continue: {focus}",
    "briefing.continue.prompt": "Let's continue where we left off: {focus}",
    "briefing.threads.label": "Show my open threads",
    "briefing.threads.prompt": "Show my open threads and where each one stands.",
    "briefing.talk.label": "Talk about {focus}",
    "briefing.talk.prompt": "Let's talk about this again: {focus}",
    "briefing.overdue": "{text} (was due {by})",
    # A list of alternatives ("A, B, C" / "A、B 或 C"): between items, and before the last one.
    "list.or.separator": ", ",
    "list.or.last": ", ",
    # No model provider configured (core/llm/registry.py fills in the registry's variable names).
    "setup.noModel": (
        "No model provider is configured. Set the API key of one provider — {keys} — or, for a local "
        "or other OpenAI-compatible server (Ollama, vLLM, llama.cpp), {baseUrl} (e.g. {example})."
    ),
    # Tool-call labels (core/turn/labels.py): a tool without phrases of its own, `{x}` its name.
    "tool.other.running": "Using {x}",
    "tool.other.completed": "Used {x}",
    "tool.other.error": "{x} failed",
    # Appended to a running label when the call was stopped or not allowed.
    "tool.state.interrupted": " — stopped",
    "tool.state.denied": " — not allowed",
    # A finished recall that says how many conversations it found.
    "tool.recall.foundNone": 'Found nothing about "{query}"',
    "tool.recall.foundOne": 'Recalled {count} conversation about "{query}"',
    "tool.recall.foundMany": 'Recalled {count} conversations about "{query}"',
    # The subjects a label names when the call's arguments give none.
    "tool.subject.aSlice": "a slice",
    "tool.subject.aPage": "a page",
    "tool.subject.card": "the user card",
    "tool.subject.cardOf": "the card from {x}",
    # Dates in labels: month names (a number in Chinese), a slice's minute, a whole date.
    "date.monthNames": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    "date.dayTime": "{month} {day} {time}",
    "date.full": "{month} {day}, {year}",
    # A date window (readTimelineWindow's subject).
    "period.all": "the timeline",
    "period.since": "since {x}",
    "period.until": "up to {x}",
    "period.month": "{month} {year}",
    "period.day": "{date}",
    "period.sameMonth": "{month} {fromDay}–{toDay}, {year}",
    "period.sameYear": "{fromMonth} {fromDay} – {toMonth} {toDay}, {year}",
    "period.otherYears": "{start} – {end}",
}
