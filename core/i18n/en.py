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
    # Each tool's label (running, completed, error), `{x}` the call's subject; declared beside the
    # tool by key (core/agent/main_tools.py TOOL_LABELS, web_tools.py WEB_TOOL_LABELS).
    "tool.recall.running": 'Recalling "{x}"',
    "tool.recall.completed": 'Recalled "{x}"',
    "tool.recall.error": 'Could not recall "{x}"',
    "tool.readSlice.running": "Viewing {x}",
    "tool.readSlice.completed": "Viewed {x}",
    "tool.readSlice.error": "Could not open {x}",
    "tool.readSliceSummary.running": "Skimming {x}",
    "tool.readSliceSummary.completed": "Skimmed {x}",
    "tool.readSliceSummary.error": "Could not skim {x}",
    "tool.readTimelineWindow.running": "Viewing {x}",
    "tool.readTimelineWindow.completed": "Viewed {x}",
    "tool.readTimelineWindow.error": "Could not view {x}",
    "tool.readPreviously.running": "Reading {x}",
    "tool.readPreviously.completed": "Read {x}",
    "tool.readPreviously.error": "Could not read {x}",
    "tool.readAgentTimeline.running": "Viewing notes from {x}",
    "tool.readAgentTimeline.completed": "Viewed notes from {x}",
    "tool.readAgentTimeline.error": "Could not open notes from {x}",
    "tool.currentTime.running": "Checking the time",
    "tool.currentTime.completed": "Checked the time",
    "tool.currentTime.error": "Could not check the time",
    "tool.thinkDeep.running": 'Thinking about "{x}"',
    "tool.thinkDeep.completed": 'Thought about "{x}"',
    "tool.thinkDeep.error": 'Could not finish thinking about "{x}"',
    "tool.readMemoryFile.running": "Reading {x}",
    "tool.readMemoryFile.completed": "Read {x}",
    "tool.readMemoryFile.error": "Could not read {x}",
    "tool.writeMemoryFile.running": "Saving {x}",
    "tool.writeMemoryFile.completed": "Saved {x}",
    "tool.writeMemoryFile.error": "Could not save {x}",
    "tool.listMemoryFiles.running": "Browsing {x}",
    "tool.listMemoryFiles.completed": "Browsed {x}",
    "tool.listMemoryFiles.error": "Could not browse {x}",
    "tool.webSearch.running": 'Searching the web for "{x}"',
    "tool.webSearch.completed": 'Searched the web for "{x}"',
    "tool.webSearch.error": 'Could not search the web for "{x}"',
    "tool.webFetch.running": "Fetching {x}",
    "tool.webFetch.completed": "Fetched {x}",
    "tool.webFetch.error": "Could not fetch {x}",
}
