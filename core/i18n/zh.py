"""The server's words in Chinese (the same keys as core/i18n/en.py)."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "briefing.continue.label": "继续：{focus}",
    "briefing.continue.prompt": "接着上次聊：{focus}",
    "briefing.threads.label": "看看还欠着的事",
    "briefing.threads.prompt": "列出我还没了结的事，以及每件事现在的进展。",
    "briefing.talk.label": "聊聊：{focus}",
    "briefing.talk.prompt": "我们再聊聊这个：{focus}",
    "briefing.overdue": "{text}（原定 {by} 前）",
    "list.or.separator": "、",
    "list.or.last": " 或 ",
    "setup.noModel": (
        "还没有配置模型服务。请设置其中一个服务的 API 密钥：{keys}；"
        "本地或其他兼容 OpenAI 的服务（Ollama、vLLM、llama.cpp）请设置 {baseUrl}（例如 {example}）。"
    ),
}
