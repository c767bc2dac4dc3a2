"""The studio's page (NiceGUI): the editor, its findings, the impact panel, the pictures, the buttons.

The page only shows what :class:`rulekit.studio.session.Session` computes. Each edit is analysed in a
worker thread, newest text first (edits typed meanwhile replace the one waiting): parse, then the
impact counts, then the lint and the picture, so the counts follow typing before the slower parts.
Any error is shown on the page; none reaches the server.
"""

from __future__ import annotations

import asyncio
import html
import logging

from nicegui import background_tasks, run, ui

from rulekit.errors import RulekitError
from rulekit.studio.session import (
    EXPORT_TARGETS,
    SQL_DIALECTS,
    Check,
    Session,
    lint_and_picture,
    marks,
)

log = logging.getLogger("rulekit.studio")

IDLE_SECONDS = 0.25  # typing pause after which the lint and the picture are redrawn

CSS = """
.rk-error { text-decoration: wavy underline #c62828; background: #ffebee; }
.rk-warning { text-decoration: wavy underline #ef6c00; background: #fff8e1; }
.rk-finding { font-family: monospace; font-size: 12px; white-space: pre-wrap; }
.rk-finding.error { color: #c62828; }
.rk-finding.warning { color: #ef6c00; }
.rk-editor { height: 62vh; border: 1px solid #ddd; }
.rk-picture { overflow: auto; max-height: 75vh; }  /* rulekit's SVGs have no viewBox: scroll, not scale */
.rk-confusion td, .rk-confusion th { padding: 2px 10px; text-align: right; }
"""


def _cell(v) -> str:
    return "" if v is None else str(v)


def _moved(spans: list[tuple], before: str, after: str) -> list[tuple] | None:
    """``spans`` (offsets into ``before``) where the editor has them after the one edit that turns
    ``before`` into ``after`` (positions after it shift); None when a span touches the edit or the
    stretch where the edit could have been made (typing ``1`` into ``11``: either place)."""
    if before == after:
        return list(spans)
    shift = len(after) - len(before)
    lo, hi = _edit(before, after, prefix_first=True), _edit(before, after, prefix_first=False)
    start, end = min(lo[0], hi[0]), max(lo[1], hi[1])  # every place the edit can have been made
    out = []
    for a, b, *rest in spans:
        if b < start or (b == start and a < b and start == lo[0] == hi[0]):
            out.append((a, b, *rest))
        elif a > end or (a == end and a > start and end == lo[1] == hi[1]):
            out.append((a + shift, b + shift, *rest))
        else:
            return None
    return out


def _edit(before: str, after: str, prefix_first: bool) -> tuple[int, int]:
    """The replaced stretch [start, end) of ``before``, matching the common prefix first (or the
    common suffix first)."""
    n = min(len(before), len(after))

    def prefix(limit: int) -> int:
        k = 0
        while k < limit and before[k] == after[k]:
            k += 1
        return k

    def suffix(limit: int) -> int:
        k = 0
        while k < limit and before[-1 - k] == after[-1 - k]:
            k += 1
        return k

    if prefix_first:
        p = prefix(n)
        q = suffix(n - p)
    else:
        q = suffix(n)
        p = prefix(n - q)
    return p, len(before) - q


class StudioPage:
    """One browser tab's view of the session (its own editor text; the files are the session's)."""

    def __init__(self, session: Session):
        self.session = session
        self.pending: str | None = None
        self.busy = False
        self.checked: Check | None = None
        self.version = 0  # analyses started (the idle-time lint draws only for the newest)
        self._rule_rows: list | None = None
        self._picture_svg = ""  # the newest picture; drawn only while its tab is shown
        self._picture_shown = ""
        self._findings_shown: tuple | None = None  # (headlines, marks, their text) on the page
        self._build()

    # --- layout -----------------------------------------------------------------------------------------

    def _build(self) -> None:
        s = self.session
        ui.add_css(CSS)
        with ui.header().classes("items-center gap-2 bg-slate-800"):
            self.title = ui.label(s.display).classes("text-lg font-mono")
            ui.button("Format", on_click=self.format).classes("rk-format")
            self.save_button = ui.button("Save", on_click=self.save).classes("rk-save")
            if s.path is None:
                self.save_button.disable()
            ui.button("Revert", on_click=self.revert).classes("rk-revert").tooltip(
                "back to the text as last saved (as opened, when never saved)")
            self.save_as_path = ui.input(placeholder="Save As path").classes("rk-save-as-path w-64") \
                .props("dense dark")
            ui.button("Save As", on_click=self.save_as).classes("rk-save-as")
        self.status = ui.label("").classes("rk-status font-mono text-sm")
        with ui.row().classes("w-full no-wrap items-start"):
            with ui.column().classes("w-1/2"):
                self.editor = ui.codemirror(s.saved_text, language="Python",
                                            on_change=self.changed).classes("rk-editor w-full")
                self.findings = ui.column().classes("rk-findings w-full gap-0")
            with ui.column().classes("w-1/2"):
                with ui.tabs() as tabs:
                    t_impact = ui.tab("Impact")
                    t_picture = ui.tab("Picture")
                    t_export = ui.tab("Export")
                self._picture_tab = t_picture
                with ui.tab_panels(tabs, value=t_impact, on_change=self._tab_changed).classes("w-full") \
                        as self._panels:
                    with ui.tab_panel(t_impact):
                        self._impact_panel()
                    with ui.tab_panel(t_picture):
                        self.picture = ui.html("", sanitize=True).classes("rk-picture w-full")
                        if s.model is not None:
                            ui.label("the model as opened (a tree per picture)").classes("text-sm")
                            ui.html(s.model_picture(), sanitize=True).classes("rk-picture rk-tree w-full")
                    with ui.tab_panel(t_export):
                        self._export_panel()
        ui.timer(0.05, self.first_analysis, once=True)

    def _impact_panel(self) -> None:
        if self.session.data is None:
            ui.label("start the studio with --data DATA to see what an edit does to rows")
        self.changed_label = ui.label("").classes("rk-changed text-lg font-bold")
        self.accuracy = ui.label("").classes("rk-accuracy")
        self.confusion = ui.html("", sanitize=True).classes("rk-confusion")
        self.chart = ui.echart({"xAxis": {"type": "category", "data": []}, "yAxis": {"type": "value"},
                                "tooltip": {}, "legend": {},
                                "series": [{"type": "bar", "name": "decides", "data": []},
                                           {"type": "bar", "name": "correct", "data": []}]}) \
            .classes("rk-chart w-full h-48")
        columns = [{"name": n, "label": n, "field": n, "sortable": True}
                   for n in ("name", "line", "conclusion", "decides", "correct")]
        self.rule_table = ui.table(columns=columns, rows=[], row_key="index",
                                   pagination=15).classes("rk-rules w-full")
        self.rule_table.on("rowClick", self.rule_clicked)
        self.rows_title = ui.label("").classes("rk-rows-title")
        self.rows_table = ui.table(columns=[], rows=[], row_key="row", pagination=10) \
            .classes("rk-rows w-full")
        self.rows_table.on("rowClick", self.row_clicked)
        with ui.row().classes("items-center"):
            self.explain_row = ui.number("row", value=0, min=0, precision=0).classes("rk-explain-row w-24")
            ui.button("Explain", on_click=self.explain).classes("rk-explain")
        self.explanation = ui.label("").classes("rk-explanation font-mono text-sm")

    def _export_panel(self) -> None:
        self.export_to = ui.select(list(EXPORT_TARGETS), value="sql", label="target").classes("rk-export-to")
        self.export_dialect = ui.select(list(SQL_DIALECTS), value="sqlite", label="SQL dialect") \
            .classes("rk-export-dialect")
        self.export_table = ui.input("SQL: table (empty: a bare expression)").classes("rk-export-table")
        self.export_key = ui.input("SQL: key column").classes("rk-export-key")
        self.export_proba = ui.checkbox("SQL: probability columns").classes("rk-export-proba")
        self.export_path = ui.input("write to (path)").classes("rk-export-path w-full")
        ui.button("Export", on_click=self.export).classes("rk-export")
        self.export_message = ui.label("").classes("rk-export-message font-mono text-sm")

    # --- analysis ----------------------------------------------------------------------------------------

    async def first_analysis(self) -> None:
        await self.changed(None)

    async def changed(self, _event) -> None:
        """Analyse the newest text; edits typed while one is analysed replace the one waiting."""
        self.pending = self.editor.value
        if self.busy:
            return
        self.busy = True
        try:
            while self.pending is not None:
                text, self.pending = self.pending, None
                try:
                    await self._analyse(text)
                except Exception as err:  # shown, never fatal to the server
                    log.exception("studio: analysis failed")
                    self.status.set_text(f"internal error: {type(err).__name__}: {err}")
        finally:
            self.busy = False

    async def _analyse(self, text: str) -> None:
        s = self.session
        self.version += 1
        version = self.version
        checked = await run.io_bound(s.check, text, with_lint=False)
        self.checked = checked
        if checked.errors:
            self._show_findings(text, checked.errors)
            self.changed_label.props(f"data-len={len(text)}")
            if s.data is not None:
                self.changed_label.set_text("changed rows: ? (the text has errors)")
            return
        imp = None
        if s.data is not None:
            try:
                imp = await run.io_bound(s.impact, checked)
            except RulekitError as err:
                self.changed_label.set_text(f"impact not computed: {err}")
            else:
                self._show_counts(imp)
        self.changed_label.props(f"data-len={len(text)}")
        if self.pending is None:
            if imp is not None:
                self._show_rule_table(imp)
            background_tasks.create(self._when_idle(text, checked, version), name="rulekit-lint")

    async def _when_idle(self, text: str, checked: Check, version: int) -> None:
        """The lint's warnings and the picture, once typing pauses (they cost more than the counts),
        computed in a worker process: a thread would hold the interpreter lock the next keystroke's
        counts need (measured: keystroke-to-counts p95 672 ms with the lint in a thread, 264 ms without)."""
        await asyncio.sleep(IDLE_SECONDS)
        if version != self.version or self.pending is not None:
            return
        try:
            try:
                result = await run.cpu_bound(lint_and_picture, text, self.session.display)
            except Exception:  # no worker process (e.g. it died): in a thread then
                log.warning("studio: lint worker unavailable, linting in a thread", exc_info=True)
                result = await run.io_bound(lint_and_picture, text, self.session.display)
            if result is None or version != self.version:  # None: the server is stopping
                return
            found, svg = result
            self._show_findings(text, found)
            self._picture_svg = svg
            self._draw_picture()
        except Exception as err:  # shown, never fatal to the server
            log.exception("studio: lint failed")
            self.status.set_text(f"internal error: {type(err).__name__}: {err}")

    def _tab_changed(self, event) -> None:
        self._draw_picture()

    def _draw_picture(self) -> None:
        """The rules' picture (~180 KB of SVG at 500 rules) goes to the page only while its tab is
        shown and when it changed: drawing it in the browser competed with the next keystroke."""
        v = self._panels.value
        shown = v is self._picture_tab or v == self._picture_tab.props["name"]
        if shown and self._picture_svg != self._picture_shown:
            self._picture_shown = self._picture_svg
            self.picture.set_content(self._picture_svg)

    def _show_findings(self, text: str, found) -> None:
        """The findings' list and marks, sent only when they changed (500 findings: 500 elements)."""
        heads = tuple((d.headline(), d.severity) for d in found)
        spans = [(m.start, m.end, m.diagnostic.severity, m.diagnostic.message) for m in marks(text, found)]
        n_err = sum(d.severity == "error" for d in found)
        self.status.set_text(f"{n_err} error(s), {len(found) - n_err} warning(s)" if found else "valid")
        same = self._findings_shown is not None and self._findings_shown[0] == heads
        if same and _moved(self._findings_shown[1], self._findings_shown[2], text) == spans:
            self._findings_shown = (heads, spans, text)
            return  # the page's marks already moved with the typing (CodeMirror maps them)
        if not same:
            self.findings.clear()
            with self.findings:
                for d in found:
                    ui.label(d.headline()).classes(f"rk-finding {d.severity}")
        self._findings_shown = (heads, spans, text)
        # through the component's method, not the element's props: a props update re-sends the
        # editor's value as the server last saw it, undoing keystrokes still on their way
        self.editor.run_method("setDecorations", [
            {"kind": "mark", "from": a, "to": b, "class": f"rk-{sev}", "attributes": {"title": msg}}
            for a, b, sev, msg in spans])

    def _show_counts(self, imp) -> None:
        self.changed_label.set_text(f"changed rows: {imp.changed:,} of {imp.rows:,}"
                                    + (f" (probabilities only: {imp.proba_changed:,})" if imp.proba_changed else ""))
        c = imp.confusion
        if c is not None:
            self.accuracy.set_text(f"accuracy: before {c.accuracy_before:.4f}, after {c.accuracy_after:.4f}")
            head = "".join(f"<th>{html.escape(_cell(k))}</th>" for k in c.classes)
            body = "".join(
                f"<tr><th>{html.escape(_cell(k))}</th>"
                + "".join(f"<td>{b:,} &rarr; {a:,}</td>" for b, a in zip(rb_, ra_)) + "</tr>"
                for k, rb_, ra_ in zip(c.classes, c.before, c.after))
            self.confusion.set_content(f"<table><tr><th>true \\ predicted</th>{head}</tr>{body}</table>"
                                       "<div class='text-xs'>before &rarr; after</div>")
        elif imp.mse_before is not None:
            self.accuracy.set_text(f"MSE: before {imp.mse_before:.6g}, after {imp.mse_after:.6g}")

    def _show_rule_table(self, imp) -> None:
        """The per-rule table and chart, sent only when they change (500 rules: ~50 KB a message)."""
        rows = [{"index": r.index, "name": r.name, "line": r.line, "conclusion": r.conclusion,
                 "decides": r.decides, "correct": r.correct} for r in imp.rules]
        if rows == self._rule_rows:
            return
        self._rule_rows = rows
        self.rule_table.rows = rows
        self.rule_table.update()
        self.chart.options["xAxis"]["data"] = [r["name"] for r in rows]
        self.chart.options["series"][0]["data"] = [r["decides"] for r in rows]
        self.chart.options["series"][1]["data"] = [r["correct"] or 0 for r in rows]
        self.chart.update()

    # --- clicks ----------------------------------------------------------------------------------------

    async def rule_clicked(self, event) -> None:
        try:
            row = event.args[1]
            if self.checked is None or self.checked.rulebase is None:
                return
            total, records = await run.io_bound(self.session.rows_decided, self.checked, int(row["index"]))
            self.rows_title.set_text(f"rule {row['name']} decides {total:,} row(s)"
                                     + (f"; the first {len(records)} shown" if total > len(records) else ""))
            cols = list(records[0]) if records else []
            self.rows_table.columns = [{"name": k, "label": k, "field": k} for k in cols]
            self.rows_table.rows = [{k: _cell(v) for k, v in r.items()} | {"row": r["row"]} for r in records]
            self.rows_table.update()
        except Exception as err:  # noqa: BLE001
            self.rows_title.set_text(f"error: {err}")

    async def row_clicked(self, event) -> None:
        self.explain_row.value = int(event.args[1]["row"])
        await self.explain()

    async def explain(self) -> None:
        try:
            if self.checked is None:
                raise RulekitError("nothing analysed yet")
            row = int(self.explain_row.value or 0)
            text = await run.io_bound(self.session.explain, self.checked, row)
            self.explanation.set_text(f"row {row}: {text}")
        except (RulekitError, ValueError, TypeError) as err:
            self.explanation.set_text(f"error: {err}")

    # --- buttons ---------------------------------------------------------------------------------------

    def _report(self, label, action) -> bool:
        try:
            label.set_text(action())
            return True
        except RulekitError as err:
            label.set_text(f"error: {err}")
            return False

    def format(self) -> None:
        def act():
            self.editor.value = self.session.formatted(self.editor.value)
            return "formatted"
        self._report(self.status, act)

    async def save(self) -> None:
        if self._report(self.status, lambda: self.session.save(self.editor.value)):
            await self.changed(None)

    async def save_as(self) -> None:
        if self._report(self.status, lambda: self.session.save_as(self.editor.value, self.save_as_path.value)):
            self.title.set_text(self.session.display)
            self.save_button.enable()
            await self.changed(None)

    def revert(self) -> None:
        self.editor.value = self.session.revert()
        self.status.set_text("reverted to the saved text")

    async def export(self) -> None:
        try:
            msg = await run.io_bound(
                self.session.export, self.editor.value, to=self.export_to.value,
                path=self.export_path.value or "", dialect=self.export_dialect.value,
                table=self.export_table.value, key=self.export_key.value, proba=bool(self.export_proba.value))
        except RulekitError as err:
            msg = f"error: {err}"
        self.export_message.set_text(msg)
