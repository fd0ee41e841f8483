"""Operations over the whole memory, built on the file owners (core/memory/owners): forgetting
(`forget.py`, `forget_plan.py`), `previously check` (`check.py`), editing a slice's marks
(`edit.py`) and taking an exchange back (`retract.py`). They may use search and media; the
memory layer below never imports them (tests/unit/test_layers.py)."""
