"""English irregular inflections → their base word, so "bought" meets "buy" and "children" "child".

Snowball stemming joins regular inflections (walked, walking → walk) but leaves irregular
ones apart. This table covers the common irregular verbs and plurals of everyday English.
Forms that are more often another word are left out ("rose", "lay", "bound", "ground",
"wound", "bore", "lives", "leaves"); "saw", "left" and "found" are kept as verbs, which is how
conversations mostly use them. A lemmatizer package would do this too,
but the ones on PyPI pull in numpy or a model download, too heavy for the Lambda bundle.
"""

from __future__ import annotations

# base: forms (past, past participle, irregular plural). One line per base word.
_TABLE = """
arise: arose arisen
awake: awoke awoken
be: was were been
beat: beaten
become: became
begin: began begun
bend: bent
bite: bitten
bleed: bled
blow: blew blown
break: broke broken
breed: bred
bring: brought
build: built
burn: burnt
buy: bought
catch: caught
choose: chose chosen
cling: clung
come: came
creep: crept
deal: dealt
dig: dug
do: did done
draw: drew drawn
dream: dreamt
drink: drank drunk
drive: drove driven
eat: ate eaten
fall: fell fallen
feed: fed
feel: felt
fight: fought
find: found
flee: fled
fly: flew flown
forbid: forbade forbidden
forget: forgot forgotten
forgive: forgave forgiven
freeze: froze frozen
get: got gotten
give: gave given
go: went gone
grow: grew grown
hang: hung
have: had
hear: heard
hide: hid hidden
hold: held
keep: kept
kneel: knelt
know: knew known
lead: led
lean: leant
leap: leapt
learn: learnt
leave: left
lend: lent
light: lit
lose: lost
make: made
mean: meant
meet: met
overcome: overcame
pay: paid
prove: proven
ride: rode ridden
ring: rang rung
rise: risen
run: ran
say: said
see: saw seen
seek: sought
sell: sold
send: sent
shake: shook shaken
shine: shone
shoot: shot
show: shown
shrink: shrank shrunk
sing: sang sung
sink: sank sunk
sit: sat
sleep: slept
slide: slid
speak: spoke spoken
speed: sped
spend: spent
spill: spilt
spin: spun
spit: spat
stand: stood
steal: stole stolen
stick: stuck
sting: stung
stink: stank stunk
strike: struck stricken
strive: strove striven
swear: swore sworn
sweep: swept
swim: swam swum
swing: swung
take: took taken
teach: taught
tear: tore torn
tell: told
think: thought
throw: threw thrown
understand: understood
undertake: undertook undertaken
wake: woke woken
wear: wore worn
weave: wove woven
weep: wept
win: won
withdraw: withdrew withdrawn
write: wrote written
child: children
foot: feet
goose: geese
knife: knives
man: men
mouse: mice
shelf: shelves
thief: thieves
tooth: teeth
wife: wives
wolf: wolves
woman: women
half: halves
"""

# Number words meet digits ("three dogs" and "3 dogs"). "one" stays a word: it is mostly a pronoun.
_NUMBERS = """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty""".split()  # noqa: SIM905 (a word list reads best as text)
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}

# Compound forms follow their base word (mistook → mistake, grandchildren → grandchild).
_PREFIXED = {"mis": ("take", "understand", "lead"), "grand": ("child",), "fire": ("man", "woman")}

IRREGULAR: dict[str, str] = {}
for _line in _TABLE.strip().splitlines():
    _base, _, _forms = _line.partition(":")
    for _form in _forms.split():
        IRREGULAR[_form] = _base
for _prefix, _bases in _PREFIXED.items():
    for _base in _bases:
        for _form, _of in list(IRREGULAR.items()):
            if _of == _base:
                IRREGULAR[_prefix + _form] = _prefix + _base
for _n, _word in enumerate(_NUMBERS, start=2):
    IRREGULAR[_word] = str(_n)
for _word, _n in _TENS.items():
    IRREGULAR[_word] = str(_n)


def base_word(word: str) -> str:
    """The base word of an irregular form, or the word itself."""
    return IRREGULAR.get(word, word)
