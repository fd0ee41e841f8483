"""Text → index terms: Unicode words, English stemming, stopwords, CJK character bigrams.

The same function tokenizes slices and questions, so a term matches only itself. Bump
`TOKENIZER_VERSION` whenever the output for some input changes: a stored index built by another
version is then rebuilt instead of silently mismatching the questions.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import chain

import Stemmer

from core.search.irregular import base_word
from core.search.spelling import american

TOKENIZER_VERSION = "en-snowball-us-irregular-cjk2.v2"  # bump when terms change

# Han, Hiragana, Katakana, Hangul (and their compatibility blocks): no spaces between words,
# so runs of them are indexed as overlapping character pairs.
_CJK = (
    "\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_WORD_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*", re.UNICODE)
_CJK_RUN_RE = re.compile(rf"^[{_CJK}]+$")
_CONTRACTION_RE = re.compile(r"['’](s|t|re|ve|ll|d|m)$")

_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing down during each few for
from further get gets got had has have having he her here hers herself him himself his how
i if in into is it its itself just me more most my myself no nor not now of off on once only
or other ought our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
yourself yourselves let lets yes yeah oh ok okay hey hi hello really much many well
s t d ll m re ve don didn doesn isn wasn aren weren haven hasn hadn wouldn shouldn couldn
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# PyStemmer: the Snowball algorithms in C (fast to import and to run).
_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball English stem of one lower-case word (cached: vocabularies are small)."""
    return str(_stemmer.stemWord(word))


def _latin_term(word: str) -> str | None:
    if word.endswith(("n't", "n’t")):
        return None  # negated auxiliaries (don't, won't) carry no topic
    word = _CONTRACTION_RE.sub("", word).replace("'", "").replace("’", "")
    if not word or word in STOPWORDS:
        return None
    word = base_word(american(word))
    if word in STOPWORDS:
        return None  # "done", "gotten": forms of words that carry no topic
    if word.isdigit():
        return word
    return stem(word)


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _word_terms(word: str) -> tuple[str, ...]:
    if not word.isascii() and _CJK_RUN_RE.match(word):
        return tuple(_cjk_terms(word))
    term = _latin_term(word)
    return (term,) if term else ()


class _TermCache(dict[str, tuple[str, ...]]):
    """Word → its index terms, computed once per distinct word (vocabularies are small)."""

    def __missing__(self, word: str) -> tuple[str, ...]:
        if len(self) >= 500_000:
            self.clear()  # a bound, not an eviction policy: hitting it is rare and only costs time
        terms = self[word] = _word_terms(word)
        return terms


_TERMS = _TermCache()
# The same words as _WORD_RE for text without non-ASCII letters, several times faster.
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def tokenize(text: str) -> list[str]:
    """Index terms of `text` in reading order (stopwords dropped, stems kept)."""
    if not text:
        return []
    if text.isascii():
        found = _ASCII_WORD_RE.findall(text.lower())
    else:
        found = _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
    return list(chain.from_iterable(map(_TERMS.__getitem__, found)))


# Words that ask about the conversation itself ("what did we talk about…"), not its topic:
# dropped from questions only, never from the index.
_QUESTION_META = """talk talked talking chat chatted discuss discussed conversation conversations
mention mentioned remember recall say said tell told"""
# The same for Chinese questions ("我们上个月聊了什么"), as the character pairs they index to.
_QUESTION_META_ZH = "我们 你们 什么 怎么 聊了 了什 聊过 过什 聊天 谈了 谈过 说了 说过 讨论 提到 记得"
QUESTION_META = frozenset(stem(w) for w in _QUESTION_META.split()) | frozenset(_QUESTION_META_ZH.split())


def query_terms(text: str) -> list[str]:
    """The distinct search terms of a question, in order, without words about talking itself."""
    return [t for t in dict.fromkeys(tokenize(text)) if t not in QUESTION_META]


def words(text: str) -> list[str]:
    """The surface words of `text` (lower-cased, no stemming): what a reason quotes back."""
    norm = unicodedata.normalize("NFKC", text or "").casefold()
    return [m.group(0) for m in _WORD_RE.finditer(norm)]
