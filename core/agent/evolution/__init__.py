"""Evolution: the two worker-model passes that change what the assistant carries between slices.

- The card pass (`card_pass.py`, `card_prompt.py`, `card_tools.py`) edits the user card.
- The direction pass (`direction_pass.py`, `direction_prompt.py`, `direction_tools.py`) tends the
  direction, the sub-agents' playbooks and the fitness ledger.

Both run on `run_subagent` with the shared read tools (`read_tools.py`) and a braked mutation
session (`mutation_session.py`); `triggers.py` decides when the card pass runs and `types.py` holds
their request and outcome. The playbooks the direction pass writes are read into the sub-agents'
prompts by `core/agent/playbooks.py`, beside the sub-agent loop (the helpers that read them import
nothing of this package).
Not to be confused with `core/memory/evolution/` (the files the direction pass writes: their
codecs, paths and undo) or `core/turn/evolving.py` (when a turn or maintenance runs the passes).
"""
