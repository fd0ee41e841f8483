"""British spellings → American ones before stemming, so "colour" meets "color".

Rules cover the regular patterns (-our, -ise, -yse, -tre, -ogue, -ence, a doubled l) for the
word stems known to follow them — a blind rule would turn "promise" into "promize" — and a
short list covers the rest. Both spellings then stem alike.
"""

from __future__ import annotations

import re

_OUR = (
    "armour behaviour colour endeavour favour flavour harbour honour humour labour neighbour "
    "odour parlour rumour saviour savour tumour vapour"
)
_ISE = (
    "apologis authoris categoris characteris criticis customis emphasis energis familiaris "
    "fertilis finalis hospitalis maximis memoris minimis moisturis normalis optimis organis "
    "personalis prioritis realis recognis sanitis socialis specialis standardis summaris "
    "sympathis utilis visualis"
)
_TRE = "calibre centre fibre kilometre litre lustre meagre metre centimetre millimetre sombre spectre theatre"
_OGUE = "analogue catalogue dialogue monologue prologue"
_ENCE = "defence licence offence pretence"
_WORDS = {
    "aeroplane": "airplane",
    "ageing": "aging",
    "aluminium": "aluminum",
    "analyse": "analyze",
    "analysed": "analyzed",
    "analysing": "analyzing",
    "cheque": "check",
    "cosy": "cozy",
    "doughnut": "donut",
    "draught": "draft",
    "grey": "gray",
    "judgement": "judgment",
    "kerb": "curb",
    "maths": "math",
    "mould": "mold",
    "moustache": "mustache",
    "mum": "mom",
    "mummy": "mommy",
    "paralyse": "paralyze",
    "plough": "plow",
    "practise": "practice",
    "practised": "practiced",
    "practising": "practicing",
    "programme": "program",
    "programmes": "programs",
    "pyjamas": "pajamas",
    "sceptical": "skeptical",
    "tyre": "tire",
    "tyres": "tires",
}
_WORDS.update({w: w.replace("our", "or") for w in _OUR.split()})
_WORDS.update({w: w[:-2] + "er" for w in _TRE.split()})
_WORDS.update({w: w[:-2] for w in _OGUE.split()})
_WORDS.update({w: w[:-3] + "nse" for w in _ENCE.split()})
# A doubled l that Snowball does not undo.
_WORDS.update({"counsellor": "counselor", "fuelled": "fueled", "fuelling": "fueling"})
_WORDS.update({"jewellery": "jewelry", "woollen": "woolen"})

_OUR_RE = re.compile(rf"^({'|'.join(w[:-3] for w in _OUR.split())})our(?=\w*$)")
_ISE_RE = re.compile(rf"^({'|'.join(_ISE.split())})(e|es|ed|ing|er|ers|ation|ations)$")
_TRE_RE = re.compile(rf"^({'|'.join(w[:-2] for w in _TRE.split())})res$")


def american(word: str) -> str:
    """The American spelling of a lower-case British word (other words unchanged)."""
    known = _WORDS.get(word)
    if known is not None:
        return known
    if m := _ISE_RE.match(word):
        return m.group(1)[:-1] + "z" + m.group(2)
    if m := _TRE_RE.match(word):
        return m.group(1) + "ers"
    return _OUR_RE.sub(r"\1or", word)
