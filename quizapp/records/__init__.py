"""Provides the plain records the store keeps and the screens show: settings, a mock interview's set-up and
summary, a question's reference. Frozen dataclasses with no SQL and no room below them, so every room
(the TUI included, which never imports the store) may import them."""
