"""Storage: one small protocol (read a snapshot, list, commit a batch) and its backends."""

from core.storage.base import Change, CommitResult, Put, Snapshot, Storage, Update, WriteBatch

__all__ = ["Change", "CommitResult", "Put", "Snapshot", "Storage", "Update", "WriteBatch"]
