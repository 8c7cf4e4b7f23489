"""config.toml: setting defaults under saved settings, one-line messages for bad values, extra deck folders
from the file and from `--decks` before or after the command, QUIZAPP_CONFIG, and `quizapp config`."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quizapp import paths
from quizapp.cli import main
from quizapp.config import load_config
from quizapp.store import Settings, load_settings, open_store, save_setting, save_settings

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent


def write_config(home: Path, text: str) -> Path:
    file = home / "config.toml"
    file.write_text(text, encoding="utf-8")
    return file


def extra_deck(folder: Path) -> Path:
    """A small bundled deck copied under a new deck id, its question ids renamed so nothing clashes."""
    source = (paths.bundled_content_dir() / "masks.yaml").read_text(encoding="utf-8")
    text = re.sub(r"^id: masks$", "id: extra-masks", source, count=1, flags=re.M)
    text = re.sub(r"^(\s+- id: )masks-", r"\1extra-masks-", text, flags=re.M)
    assert text != source
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "extra.yaml").write_text(text, encoding="utf-8")
    return folder


def listed_decks(capsys: pytest.CaptureFixture[str], *argv: str) -> set[str]:
    assert main([*argv]) == 0
    return {d["id"] for d in json.loads(capsys.readouterr().out)["decks"]}


# --------------------------------------------------------------------------- finding the file


def test_no_file_is_no_config_and_no_message(isolated_home: Path) -> None:
    config = load_config()
    assert config.file == isolated_home / "config.toml" and not config.found
    assert (config.messages, config.settings, config.deck_dirs, config.keymap) == ((), (), (), ())
    assert config.setting_defaults() is None


def test_quizapp_config_names_another_file_and_a_missing_one_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("[settings]\nnew_per_day = 3\n", encoding="utf-8")
    monkeypatch.setenv("QUIZAPP_CONFIG", str(elsewhere))
    config = load_config()
    assert config.file == elsewhere and config.found and config.settings == (("new_per_day", 3),)
    monkeypatch.setenv("QUIZAPP_CONFIG", str(tmp_path / "missing.toml"))
    (message,) = load_config().messages
    assert "missing.toml" in message and "QUIZAPP_CONFIG" in message


def test_help_and_quizapp_config_name_the_file(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "config.toml" in " ".join(capsys.readouterr().out.split())
    assert main(["config"]) == 0
    assert f"Config file: {isolated_home / 'config.toml'} (not found" in capsys.readouterr().out


# --------------------------------------------------------------------------- settings precedence


def test_file_values_are_defaults_and_what_the_user_saved_wins(isolated_home: Path) -> None:
    write_config(
        isolated_home,
        "[settings]\nnew_per_day = 7\ndesired_retention = 0.85\n"
        'interview_date = 2026-12-03\ntheme = "nord"\n',
    )
    defaults = load_config().setting_defaults()
    assert defaults == Settings(
        new_per_day=7, desired_retention=0.85, interview_date="2026-12-03", theme="nord"
    )
    with open_store(None, now=NOW, defaults=defaults) as store:
        assert load_settings(store) == defaults
        save_setting(store, "new_per_day", 12)  # what the Settings screen or `quizapp plan` saves wins
        # the Settings screen saves the whole form: fields left as they were keep following the file
        save_settings(store, replace(load_settings(store), interview_minutes=45))
        assert load_settings(store) == replace(defaults, new_per_day=12, interview_minutes=45)
    write_config(isolated_home, "[settings]\ndesired_retention = 0.8\n")  # the user edits the file later
    with open_store(None, now=NOW, defaults=load_config().setting_defaults()) as store:
        now_in_force = load_settings(store)
    assert now_in_force == Settings(new_per_day=12, interview_minutes=45, desired_retention=0.8)
    with open_store(None, now=NOW) as store:
        assert load_settings(store) == Settings(new_per_day=12, interview_minutes=45), "no file: built-ins"


def test_commands_use_the_file_defaults_and_a_saved_value_wins(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, '[settings]\ninterview_date = "2999-01-01"\n')
    assert main(["plan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interview"] == "2999-01-01"
    assert main(["plan", "--date", "2998-06-01", "--json"]) == 0
    capsys.readouterr()
    assert main(["plan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interview"] == "2998-06-01"


# --------------------------------------------------------------------------- problems


def test_bad_values_and_unknown_keys_are_one_line_each_and_keep_the_defaults(isolated_home: Path) -> None:
    file = write_config(
        isolated_home,
        "colour = 1\n"
        "[settings]\n"
        "desired_retention = 1.5\n"
        'new_per_day = "many"\n'
        "interview_minutes = 40\n"
        'interview_date = "next week"\n'
        "nope = 1\n"
        "[keymap]\n"
        'study.hint = "f1"\n'
        '"home.stats" = ["f5", "ctrl+t"]\n'
        '"home.drill" = 3\n',
    )
    config = load_config()
    assert config.settings == (("interview_minutes", 40),)
    assert config.setting_defaults() == Settings(interview_minutes=40)
    assert config.keymap == (("study.hint", "f1"), ("home.stats", "f5,ctrl+t"))
    problems = "\n".join(config.messages)
    assert len(config.messages) == 6 and all("\n" not in m and str(file) in m for m in config.messages)
    assert "unknown key colour" in problems
    assert "desired_retention must be between 0.7 and 0.99, got 1.5" in problems and "default 0.9" in problems
    assert "new_per_day must be a whole number" in problems and "default 20" in problems
    assert "YYYY-MM-DD" in problems and "nope: unknown setting" in problems
    assert "home.drill: keys must be a key name" in problems


def test_a_command_prints_the_problems_and_still_runs(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, "[settings]\nnew_per_day = -3\n")
    assert main(["plan", "--date", "2999-01-01", "--json"]) == 0
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith("quizapp: warning: ") and "new_per_day must be between 0 and 9999" in line
    assert "Traceback" not in captured.err and json.loads(captured.out)["interview"] == "2999-01-01"
    assert main(["config"]) == 1
    assert "new_per_day" in capsys.readouterr().out


def test_a_file_that_is_not_toml_is_one_message_and_the_defaults(isolated_home: Path) -> None:
    file = write_config(isolated_home, "[settings\nnew_per_day = 3\n")
    config = load_config()
    (message,) = config.messages
    assert str(file) in message and "not valid TOML" in message and "line 1" in message
    assert config.settings == () and config.found


def test_an_unknown_theme_is_reported_by_quizapp_config(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, 'theme = "no-such-theme"\n')
    assert load_config().theme == "no-such-theme"
    assert main(["config", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["settings"] == {"theme": "no-such-theme"}
    assert any("no-such-theme" in p and "textual-dark" in p for p in report["problems"])
    write_config(isolated_home, 'theme = "nord"\n')
    assert main(["config"]) == 0


def test_the_readme_example_is_a_valid_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("```toml\n# config.toml", 1)[1].split("```", 1)[0]
    (tmp_path / "my-decks").mkdir()
    (tmp_path / "team-decks").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    file = tmp_path / "config.toml"
    file.write_text(example, encoding="utf-8")
    config = load_config(file=file)
    assert config.messages == () and config.settings and config.keymap and len(config.deck_dirs) == 2


# --------------------------------------------------------------------------- deck folders


def test_decks_before_or_after_the_command_and_from_the_file_load_an_extra_deck(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = extra_deck(tmp_path / "more")
    assert "extra-masks" not in listed_decks(capsys, "list", "--json")
    assert "extra-masks" in listed_decks(capsys, "--decks", str(folder), "list", "--json")
    assert "extra-masks" in listed_decks(capsys, "list", "--json", "--decks", str(folder))
    other = extra_deck(tmp_path / "other")
    (other / "extra.yaml").write_text(
        (other / "extra.yaml").read_text(encoding="utf-8").replace("extra-masks", "other-masks"),
        encoding="utf-8",
    )
    both = listed_decks(capsys, "--decks", str(folder), "list", "--decks", str(other), "--json")
    assert {"extra-masks", "other-masks"} <= both, "--decks adds up before and after the command"
    write_config(isolated_home, f"decks = [{json.dumps(str(folder))}]\n")
    assert "extra-masks" in listed_decks(capsys, "list", "--json")
    assert main(["show", "extra-masks-packed-entries", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "extra-masks-packed-entries"


def test_a_missing_deck_folder_is_a_warning_not_a_crash(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, 'decks = ["~/no-such-decks", "relative-missing"]\n')
    assert main(["--decks", str(tmp_path / "nowhere"), "list", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["decks"]
    warnings = captured.err.splitlines()
    assert len(warnings) == 3 and all(w.startswith("quizapp: warning: ") for w in warnings)
    assert "no-such-decks" in warnings[0] and "relative-missing" in warnings[1] and "nowhere" in warnings[2]
    write_config(isolated_home, 'decks = "not-a-list-of-folders"\n')
    assert main(["list", "--json"]) == 0
    assert "not-a-list-of-folders: no such deck folder" in capsys.readouterr().err


def test_a_past_interview_date_in_the_file_is_refused_with_a_message(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, "[settings]\ninterview_date = 2001-01-01\n")
    config = load_config(today=datetime(2026, 11, 24, tzinfo=UTC).date())
    assert dict(config.settings).get("interview_date") is None
    (message,) = config.messages
    assert "2001-01-01 has already passed" in message
    assert load_config().settings == (("interview_date", "2001-01-01"),), "no day given: not judged"
    assert main(["config"]) == 1
    assert "already passed" in capsys.readouterr().out
