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
}
