"""Provides progress backups: everything the user did, as one JSON file that export writes and import reads.

format.py says what a file holds (the records, the version); writer.py streams the store out to one; reader.py
checks one in a single validating pass and has the store load it into a fresh database that then replaces
the old one. The rows themselves come from and go to quizapp.store.backup: this room holds no SQL.
"""
