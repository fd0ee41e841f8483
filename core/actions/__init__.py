"""Operations over the whole memory, built on the file owners (core/memory/owners): forgetting
(`forget.py`, `forget_plan.py`), `previously check` (`check.py`), editing a slice's marks
(`edit.py`), taking an exchange back (`retract.py`), deciding another agent's staged note
(`notes.py`) and rebuilding the indexes (`weave.py`). Each takes storage and commits once;
adapters never open a batch. They may use search and media; the memory layer below never
imports them (tests/unit/test_layers.py)."""
