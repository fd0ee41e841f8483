"""The server's words, one catalogue per language the page speaks, keyed like the page's
(web/app/i18n/*.js: dotted keys, `{name}` placeholders).

`t(key, lang, **args)` is the one way a user-facing sentence is chosen: an unknown language reads
English; an unknown key is a programming error (KeyError), caught by tests/unit/test_i18n.py,
which also keeps the catalogues' keys and placeholders equal and the Chinese text out of every
other module.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.i18n import en, zh
from core.reltime import Locale, normalize_locale

CATALOGUES: Mapping[Locale, Mapping[str, str]] = {"en": en.MESSAGES, "zh": zh.MESSAGES}


def t(key: str, lang: str, **args: object) -> str:
    """The sentence `key` in `lang` (anything starting with zh is Chinese), `{name}`s filled in."""
    text = CATALOGUES[normalize_locale(lang)][key]
    return text.format(**args) if args else text


def any_of(items: tuple[str, ...] | list[str], lang: str) -> str:
    """Alternatives as the language lists them: `A, B, C` / `A、B 或 C`."""
    if len(items) < 2:
        return "".join(items)
    return t("list.or.separator", lang).join(items[:-1]) + t("list.or.last", lang) + items[-1]
