"""Provides the Textual app: QuizApp and make_app in quizapp.tui.app, its screens and widgets."""
