"""Provides TrainedScreen: Explore's trained-model mode. The toy transformer's real heads on a sequence
that repeats, each head labelled with its score on it; ablate heads and watch the in-context loss and the
induction head change, or train the toy again and watch the heads form.

The numbers come from quizapp.explore.trained (which runs engine.toy); forward passes and training run in
workers, and only the newest inputs are drawn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Header, Input, Label, Static
from textual.worker import get_current_worker

from engine import toy
from quizapp.errors import QuizappError
from quizapp.explore.trained import (
    HONEST_LABEL,
    TrainedInputs,
    progress_text,
    toggled,
    toggled_head,
    toy_model,
    trained_view,
)
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import HeatmapView

if TYPE_CHECKING:
    from engine.toy import ToyModel
    from quizapp.explore.trained import TrainedView

N_LAYERS, N_HEADS = 2, 4
"""The shipped toy's shape: one checkbox per head (a retrained toy has the same shape)."""
HEADS: tuple[tuple[int, int], ...] = tuple((layer, h) for layer in range(N_LAYERS) for h in range(N_HEADS))
REPORT_EVERY = 25
"""Training steps between redraws: about twice a second here, so the heads are seen forming."""


@dataclass(frozen=True)
class Trained:
    """A training report: the progress line, and the heads as they are now (None if the inputs on screen
    cannot be drawn)."""

    text: str
    view: TrainedView | None


TOGGLES: dict[str, tuple[str, str]] = {
    "tie_heads": ("tr-tie", "same weights (s)"),
    "drop_output_projection": ("tr-drop-wo", "no W_O (o)"),
}


def _ablate_binding(index: int, layer: int, head: int) -> Binding:
    return Binding(
        str(index + 1),
        f"ablate({layer}, {head})",
        f"Ablate L{layer}H{head}",
        show=False,
        tooltip=f"Zero head L{layer}H{head}'s output, or put it back",
        id=f"trained.ablate_{index + 1}",
    )


class TrainedScreen(QuizScreen[None]):
    """The trained toy; letters and digits act while the picture has focus, Tab walks through the fields."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "app.pop_screen",
            "Sandbox",
            tooltip="Back to the random-weights sandbox",
            id="trained.back",
        ),
        Binding("n", "new_tokens", "New tokens", tooltip="Draw other random tokens", id="trained.new"),
        Binding(
            "s",
            "flip('tie_heads')",
            "Tie",
            tooltip="Give every head head 0's weights",
            id="trained.same",
        ),
        Binding(
            "o",
            "flip('drop_output_projection')",
            "No W_O",
            tooltip="Remove W_O in both layers",
            id="trained.no_wo",
        ),
        Binding(
            "t",
            "train",
            "Train",
            tooltip="Train the toy from scratch here, or stop training",
            id="trained.train",
        ),
        Binding("v", "values", "Values", tooltip="Print the weights in the cells", id="trained.values"),
        Binding("r", "reset", "Reset", tooltip="Intact model, random tokens", id="trained.reset", show=False),
        *(_ablate_binding(i, layer, head) for i, (layer, head) in enumerate(HEADS)),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.model, self.source = toy_model()
        self.inputs = TrainedInputs()
        self.view: TrainedView = trained_view(self.inputs, self.model, note=self._note())
        self.training = False
        self.stopping = False

    def _note(self) -> str:
        return f"Trained model ({self.source}): {HONEST_LABEL}. The sequence is shown twice."

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="trained-controls"):
            with Horizontal(classes="tr-row"):
                yield Label("Sentence", classes="tr-label")
                yield Input("", placeholder="empty: random tokens", id="tr-sentence", compact=True)
                yield Label("Seed", classes="tr-label")
                yield Input("0", id="tr-seed", compact=True, type="integer", classes="tr-num")
            with Horizontal(classes="tr-row"):
                for box_id, label in TOGGLES.values():
                    yield Checkbox(f"{label}: off", False, id=box_id, compact=True)
            with Horizontal(classes="tr-row"):
                yield Label("Ablate", classes="tr-label")
                for index, (layer, head) in enumerate(HEADS):
                    yield Checkbox(
                        f"L{layer}H{head}", False, id=f"tr-ablate-{index}", compact=True, classes="tr-head"
                    )
            yield Static("", id="tr-error")
        with VerticalScroll(id="trained-body"):
            yield Static("", id="tr-note")
            yield Static("", id="tr-progress")
            yield Static("", id="tr-loss")
            for layer in range(N_LAYERS):
                yield HeatmapView(
                    None, title=f"Layer {layer} (rows: queries, columns: keys)", id=f"tr-layer-{layer}"
                )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Explore"
        self.sub_title = "trained toy transformer"
        self.query_one("#tr-error").display = False
        self.query_one("#tr-progress").display = False
        self.show(self.view)
        self.query_one("#trained-body").focus()

    # -- drawing --------------------------------------------------------------------------------------------

    def show(self, view: TrainedView) -> None:
        self.view = view
        self.query_one("#tr-note", Static).update(Text(view.note, style="dim"))
        self.query_one("#tr-loss", Static).update(Text(view.loss_text, style="bold"))
        for layer, heatmap in enumerate(view.layers):
            self.query_one(f"#tr-layer-{layer}", HeatmapView).set_heatmap(heatmap)
        self.query_one("#tr-error").display = False
        self._sync_boxes(view.inputs)

    def _sync_boxes(self, inputs: TrainedInputs) -> None:
        for name, (box_id, label) in TOGGLES.items():
            on_ = bool(getattr(inputs, name))
            box = self.query_one(f"#{box_id}", Checkbox)
            if box.value != on_:
                box.value = on_
            box.label = f"{label}: {'on' if on_ else 'off'}"
        for index, head in enumerate(HEADS):
            box = self.query_one(f"#tr-ablate-{index}", Checkbox)
            if box.value != (head in inputs.ablate):
                box.value = head in inputs.ablate

    def show_error(self, message: str) -> None:
        error = self.query_one("#tr-error", Static)
        error.update(Text(message + " (The picture below is the last valid one.)"))
        error.display = True

    def apply(self, inputs: TrainedInputs) -> None:
        if inputs == self.inputs:
            return
        self.inputs = inputs
        if not self.training:  # while training, the next progress report draws the new inputs
            self._compute(inputs, self.model)

    def _compute(self, inputs: TrainedInputs, model: Any) -> None:
        self.fetch(
            lambda: trained_view(inputs, model, note=self._note()),
            self._computed,
            group="trained",
            exclusive=True,
            store=False,
            failed=partial(self._refused, inputs),
        )

    def _computed(self, view: TrainedView) -> None:
        if view.inputs == self.inputs:
            self.show(view)

    def _refused(self, inputs: TrainedInputs, error: Exception) -> None:
        """Inputs the core refused: its words under the heads (if still on screen); a bug is reported."""
        if not isinstance(error, QuizappError):
            self.router.report_error(error)
        elif inputs == self.inputs:
            self.show_error(str(error))

    # -- training -------------------------------------------------------------------------------------------

    def action_train(self) -> None:
        if self.training:
            self.workers.cancel_group(self, "train")
            self.stopping = True
            self.query_one("#tr-progress", Static).update("Stopping at the next report…")
            return
        self.training = True
        progress = self.query_one("#tr-progress", Static)
        progress.update(f"Starting to train from seed {self.inputs.seed}…")
        progress.display = True
        self._train(self.inputs.seed)

    def _train(self, seed: int) -> None:
        """Trains in a worker; each report redraws the heads as they are at that step."""
        self.fetch_reporting(
            partial(self._training, seed),
            self._progressed,
            partial(self._ended, "Stopped.", "Trained."),
            group="train",
            exclusive=True,
            failed=self._training_failed,
        )

    def _training(self, seed: int, shown: Callable[[Trained], None]) -> ToyModel | None:
        """In the worker: trains the toy from `seed`, handing each report to `shown`; the model, or None
        when stopped (the worker cancelled by a second t)."""
        worker = get_current_worker()
        started = time.monotonic()

        def report(p: toy.TrainProgress) -> bool:
            if worker.is_cancelled:
                return False
            note = f"Training from seed {seed}: the heads as they are at step {p.step} of {p.steps}."
            try:
                view = trained_view(self.inputs, p.model, note=note)
            except QuizappError:
                view = None
            shown(Trained(progress_text(p, time.monotonic() - started), view))
            return True

        model = toy.train(seed=seed, steps=toy.DEFAULT_STEPS, on_progress=report, progress_every=REPORT_EVERY)
        return None if worker.is_cancelled else model

    def _progressed(self, report: Trained) -> None:
        if not self.training or self.stopping:
            return
        self.query_one("#tr-progress", Static).update(Text(report.text))
        if report.view is not None and report.view.inputs == self.inputs:
            self.show(report.view)

    def _training_failed(self, error: Exception) -> None:
        self.router.report_error(error)
        self._ended("Training failed.", "", None)

    def _ended(self, stopped: str, trained: str, model: ToyModel | None) -> None:
        """Training finished (`model` set: says `trained`) or was stopped or failed (says `stopped`)."""
        self.training = self.stopping = False
        progress = self.query_one("#tr-progress", Static)
        if model is None:
            progress.update(Text(f"{stopped} The model is back to {self.source}; press t to train again."))
            self._compute(self.inputs, self.model)
            return
        self.model, self.source = model, "trained here, not saved; `quizapp heads train` saves one"
        progress.update(Text(f"{trained} The heads below are the model you just trained."))
        self._compute(self.inputs, self.model)

    # -- events and actions ---------------------------------------------------------------------------------

    @on(Input.Changed, "#tr-sentence")
    def _sentence(self, event: Input.Changed) -> None:
        self.apply(replace(self.inputs, sentence=event.value))

    @on(Input.Changed, "#tr-seed")
    def _seed(self, event: Input.Changed) -> None:
        try:
            seed = int(event.value)
        except ValueError:
            self.show_error("The seed is a whole number.")
            return
        if not 0 <= seed < 2**31:
            self.show_error(f"The seed must be between 0 and {2**31 - 1}.")
            return
        self.apply(replace(self.inputs, seed=seed))

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        box_id = event.checkbox.id or ""
        for name, (toggle_id, _) in TOGGLES.items():
            if box_id == toggle_id and getattr(self.inputs, name) != event.value:
                self.apply(toggled(self.inputs, name, event.value))
        if box_id.startswith("tr-ablate-"):
            layer, head = HEADS[int(box_id.removeprefix("tr-ablate-"))]
            if ((layer, head) in self.inputs.ablate) != event.value:
                self.apply(toggled_head(self.inputs, layer, head))

    def action_flip(self, name: str) -> None:
        if name in TOGGLES:
            self.apply(toggled(self.inputs, name))

    def action_ablate(self, layer: int, head: int) -> None:
        self.apply(toggled_head(self.inputs, layer, head))

    def action_new_tokens(self) -> None:
        seed = (self.inputs.seed + 1) % 2**31
        self.query_one("#tr-seed", Input).value = str(seed)
        self.query_one("#tr-sentence", Input).value = ""

    def action_values(self) -> None:
        for view in self.query(HeatmapView):
            view.toggle_values()

    def action_reset(self) -> None:
        self.query_one("#tr-seed", Input).value = "0"
        self.query_one("#tr-sentence", Input).value = ""
        self.apply(TrainedInputs())
