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
    "tool.other.running": "正在使用 {x}",
    "tool.other.completed": "已使用 {x}",
    "tool.other.error": "{x} 失败",
    "tool.state.interrupted": "（已中断）",
    "tool.state.denied": "（未获允许）",
    "tool.recall.foundNone": "没有找到关于“{query}”的对话",
    "tool.recall.foundOne": "回忆起 {count} 段关于“{query}”的对话",
    "tool.recall.foundMany": "回忆起 {count} 段关于“{query}”的对话",
    "tool.subject.aSlice": "一个时间片",
    "tool.subject.aPage": "一个网页",
    "tool.subject.card": "用户卡片",
    "tool.subject.cardOf": " {x} 的卡片",
    "date.monthNames": "1 2 3 4 5 6 7 8 9 10 11 12",
    "date.dayTime": "{month}月{day}日 {time}",
    "date.full": "{year}年{month}月{day}日",
    "period.all": "时间线",
    "period.since": " {x} 以来",
    "period.until": " {x} 以前",
    "period.month": " {year}年{month}月",
    "period.day": " {date}",
    "period.sameMonth": " {year}年{month}月{fromDay}日–{toDay}日",
    "period.sameYear": " {year}年{fromMonth}月{fromDay}日–{year}年{toMonth}月{toDay}日",
    "period.otherYears": " {start}–{end}",
}
