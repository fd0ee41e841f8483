"""Evolution: the two worker-model passes that change what the assistant carries between slices.

- The card pass (`card_pass.py`, `card_prompt.py`, `card_tools.py`) edits the user card.
- The direction pass (`direction_pass.py`, `direction_prompt.py`, `direction_tools.py`) tends the
  direction, the sub-agents' playbooks and the fitness ledger.

Both run on `run_subagent` with the shared read tools (`read_tools.py`) and a braked mutation
session (`mutation_session.py`); `triggers.py` decides when the card pass runs, `types.py` holds
their request and outcome, and `playbooks.py` reads a playbook into a sub-agent's prompt.
Not to be confused with `core/memory/evolution/` (the files the direction pass writes: their
codecs, paths and undo) or `core/turn/evolving.py` (when a turn or maintenance runs the passes).
"""
