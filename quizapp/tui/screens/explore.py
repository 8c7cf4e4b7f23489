"""Provides ExploreScreen: the attention sandbox. A sentence, d_model, heads, KV heads and a seed go in;
the per-head heatmaps, what W_O does, and the cost panel (parameters and KV cache, with derivations)
come out, redrawn at once whenever a field or a toggle changes.

All the numbers come from quizapp.explore.model (which runs the engine); this screen keeps the fields and the
picture in step and shows the core's message when a combination is invalid, keeping the last picture.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Header, Input, Label, Select, Static

from quizapp.errors import QuizappError
from quizapp.explore.model import DTYPES, ExploreInputs, apply_preset, explore, presets, toggled, with_text
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.derivation import DerivationView, derivation_table
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import HeatmapView

if TYPE_CHECKING:
    from quizapp.explore.model import ExploreResult

TOGGLES: dict[str, str] = {
    "causal": "ex-causal",
    "tie_heads": "ex-tie",
    "drop_output_projection": "ex-drop-wo",
}
"""ExploreInputs toggle -> the id of its checkbox."""
TOGGLE_LABELS: dict[str, str] = {
    "causal": "causal (c)",
    "tie_heads": "same weights (s)",
    "drop_output_projection": "no W_O (o)",
}
"""Checkbox labels; ": on" / ": off" is added so the state reads without colour (NO_COLOR)."""
TEXT_FIELDS: tuple[str, ...] = ("sentence", "seed", "d_model", "n_heads", "n_kv_heads")
COST_FIELDS: tuple[str, ...] = ("context", "batch", "n_layers")
NO_PRESET = "none"


def toggle_label(name: str, value: bool) -> str:
    return f"{TOGGLE_LABELS[name]}: {'on' if value else 'off'}"


class ExploreScreen(QuizScreen[None]):
    """The sandbox; letters toggle while the picture has focus, Tab walks through the fields."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Home", tooltip="Back to the decks", id="explore.back"),
        Binding("c", "flip('causal')", "Causal", tooltip="Mask future tokens", id="explore.causal"),
        Binding(
            "s",
            "flip('tie_heads')",
            "Tie",
            tooltip="Give every head the same weights",
            id="explore.same_heads",
        ),
        Binding(
            "o",
            "flip('drop_output_projection')",
            "No W_O",
            tooltip="Remove the output projection W_O",
            id="explore.no_wo",
        ),
        Binding(
            "t",
            "trained",
            "Trained",
            tooltip="Heads of a toy transformer trained here: previous-token and induction heads",
            id="explore.trained",
        ),
        Binding("v", "values", "Values", tooltip="Print the weights in the cells", id="explore.values"),
        Binding("p", "presets", "Presets", tooltip="Choose a model preset", id="explore.presets"),
        Binding("r", "reset", "Reset", tooltip="Back to the default sandbox", id="explore.reset"),
        Binding("tab", "next_field(1)", "Next field", show=False, id="explore.next_field"),
        Binding("shift+tab", "next_field(-1)", "Previous field", show=False, id="explore.previous_field"),
    ]

    def __init__(self, inputs: ExploreInputs | None = None) -> None:
        super().__init__()
        self.inputs = inputs or ExploreInputs()
        self.result: ExploreResult = explore(self.inputs)

    def compose(self) -> ComposeResult:
        i = self.inputs
        yield Header()
        with Vertical(id="explore-controls"):
            with Horizontal(classes="ex-row"):
                yield Label("Sentence", classes="ex-label")
                yield Input(i.sentence, id="ex-sentence", compact=True)
                yield Label("Seed", classes="ex-label")
                yield Input(str(i.seed), id="ex-seed", compact=True, type="integer", classes="ex-num")
            with Horizontal(classes="ex-row"):
                yield Label("d_model", classes="ex-label")
                yield Input(str(i.d_model), id="ex-d_model", compact=True, type="integer", classes="ex-num")
                yield Label("Heads", classes="ex-label")
                yield Input(str(i.n_heads), id="ex-n_heads", compact=True, type="integer", classes="ex-small")
                yield Label("KV heads", classes="ex-label")
                yield Input(
                    str(i.n_kv_heads), id="ex-n_kv_heads", compact=True, type="integer", classes="ex-small"
                )
                yield Select(
                    [("No preset", NO_PRESET), *((name, key) for key, name in presets())],
                    value=i.preset or NO_PRESET,
                    allow_blank=False,
                    id="ex-preset",
                    compact=True,
                    tooltip="Model presets from engine.MODELS",
                )
            with Horizontal(classes="ex-row"):
                for name, box_id in TOGGLES.items():
                    value = bool(getattr(i, name))
                    yield Checkbox(toggle_label(name, value), value, id=box_id, compact=True)
            yield Static("", id="ex-error")
        with VerticalScroll(id="explore-body"):
            yield Static("", id="ex-note")
            yield HeatmapView(
                self.result.heatmap, title="Attention weights (rows: queries, columns: keys)", id="ex-heatmap"
            )
            yield Static("", id="ex-wo")
            yield Static(Text("Cost panel", style="bold"), classes="ex-section")
            with Horizontal(classes="ex-row"):
                yield Label("Context", classes="ex-label")
                yield Input(str(i.context), id="ex-context", compact=True, type="integer", classes="ex-num")
                yield Label("Batch", classes="ex-label")
                yield Input(str(i.batch), id="ex-batch", compact=True, type="integer", classes="ex-small")
                yield Label("Layers", classes="ex-label")
                yield Input(
                    str(i.n_layers), id="ex-n_layers", compact=True, type="integer", classes="ex-small"
                )
                yield Select(
                    [(name, name) for name in DTYPES],
                    value=i.dtype,
                    allow_blank=False,
                    id="ex-dtype",
                    compact=True,
                    tooltip="Bytes per cached number",
                )
            yield Static("", id="ex-cost-title")
            yield DerivationView(self.result.cost.parameters, id="ex-params")
            yield DerivationView(self.result.cost.kv_cache, id="ex-kv")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Explore"
        self.query_one("#ex-params").border_title = "Attention parameters (no MLP, no embeddings)"
        self.query_one("#ex-kv").border_title = "KV cache"
        self.query_one("#ex-error").display = False
        self.router.set_blink(self)
        self.show(self.result)
        self.query_one("#explore-body").focus()

    # -- drawing --------------------------------------------------------------------------------------------

    def show(self, result: ExploreResult) -> None:
        """Draws a result: heatmaps, the W_O summary and the cost panel; the fields follow the inputs."""
        self.result = result
        self.inputs = result.inputs
        self.sub_title = "attention sandbox" + (f" · {result.inputs.preset}" if result.inputs.preset else "")
        self.query_one("#ex-note", Static).update(Text(result.note, style="dim"))
        self.query_one(HeatmapView).set_heatmap(result.heatmap)
        wo = Text()
        wo.append("Output projection: ", style="bold")
        wo.append(result.wo.text)
        self.query_one("#ex-wo", Static).update(wo)
        cost = Text(result.cost.summary, style="bold")
        cost.append("\n" + result.cost.title, style="dim")
        self.query_one("#ex-cost-title", Static).update(cost)
        self.query_one("#ex-params", DerivationView).update(derivation_table(result.cost.parameters))
        self.query_one("#ex-kv", DerivationView).update(derivation_table(result.cost.kv_cache))
        self.query_one("#ex-error").display = False
        self._sync_fields(result.inputs)

    def _sync_fields(self, inputs: ExploreInputs) -> None:
        """Puts the inputs back in the fields a preset or reset changed (unchanged fields are left alone,
        so the cursor of the field being typed in does not jump)."""
        for name in (*TEXT_FIELDS, *COST_FIELDS):
            field = self.query_one(f"#ex-{name}", Input)
            value = str(getattr(inputs, name))
            if field.value != value and not (name == "sentence" and field.has_focus):
                field.value = value
        for name, box_id in TOGGLES.items():
            box = self.query_one(f"#{box_id}", Checkbox)
            on = bool(getattr(inputs, name))
            if box.value != on:
                box.value = on
            box.label = toggle_label(name, on)
        preset = self.query_one("#ex-preset", Select)
        if preset.value != (inputs.preset or NO_PRESET):
            preset.value = inputs.preset or NO_PRESET
        dtype = self.query_one("#ex-dtype", Select)
        if dtype.value != inputs.dtype:
            dtype.value = inputs.dtype

    def apply(self, inputs: ExploreInputs) -> None:
        """Asks for the sandbox on new inputs; the forward pass runs in a worker, so typing never waits
        for it, and only the newest inputs are drawn."""
        if inputs == self.inputs:
            return
        self.inputs = inputs
        self._compute(inputs)

    def _compute(self, inputs: ExploreInputs) -> None:
        self.fetch(
            partial(explore, inputs),
            self._computed,
            group="explore",
            exclusive=True,
            store=False,
            failed=partial(self._refused, inputs),
        )

    def _computed(self, result: ExploreResult) -> None:
        if result.inputs == self.inputs:  # an older pass that finished late is dropped
            self.show(result)

    def _refused(self, inputs: ExploreInputs, error: Exception) -> None:
        """Inputs the core refused: its words under the fields (if they are still the ones on screen);
        a bug is reported."""
        if not isinstance(error, QuizappError):
            self.router.report_error(error)
        elif inputs == self.inputs:
            self.show_error(str(error))

    def show_error(self, message: str) -> None:
        error = self.query_one("#ex-error", Static)
        error.update(Text(message + " (The picture below is the last valid one.)"))
        error.display = True

    # -- events and actions ---------------------------------------------------------------------------------

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("ex-")
        if name not in TEXT_FIELDS and name not in COST_FIELDS:
            return
        try:
            inputs = with_text(self.inputs, name, event.value)
        except QuizappError as exc:
            self.show_error(str(exc))
            return
        self.apply(inputs)

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        for name, box_id in TOGGLES.items():
            if event.checkbox.id == box_id and getattr(self.inputs, name) != event.value:
                self.apply(toggled(self.inputs, name, event.value))

    @on(Select.Changed, "#ex-preset")
    def _preset(self, event: Select.Changed) -> None:
        key = None if event.value in (NO_PRESET, Select.NULL) else str(event.value)
        if key == self.inputs.preset:
            return
        try:
            self.apply(apply_preset(self.inputs, key))
        except QuizappError as exc:
            self.show_error(str(exc))

    @on(Select.Changed, "#ex-dtype")
    def _dtype(self, event: Select.Changed) -> None:
        try:
            self.apply(with_text(self.inputs, "dtype", str(event.value)))
        except QuizappError as exc:
            self.show_error(str(exc))

    def action_flip(self, name: str) -> None:
        if name in TOGGLES:
            self.apply(toggled(self.inputs, name))

    def action_values(self) -> None:
        self.query_one(HeatmapView).toggle_values()

    def action_trained(self) -> None:
        self.router.open_screen("trained")

    def action_presets(self) -> None:
        preset = self.query_one("#ex-preset", Select)
        preset.focus()
        preset.action_show_overlay()

    def action_next_field(self, step: int) -> None:
        """Tab goes round the picture, then every field in reading order (the form at the top, then the
        cost panel), and back to the picture; Shift+Tab goes the other way. (Textual's own order would
        put the picture, which holds the cost panel, between the two and skip it from the top.)"""
        body = self.query_one("#explore-body")
        ring = [body, *(w for w in self.focus_chain if w is not body)]
        here = ring.index(self.focused) if self.focused in ring else 0
        ring[(here + step) % len(ring)].focus()

    def action_reset(self) -> None:
        self.apply(ExploreInputs())
