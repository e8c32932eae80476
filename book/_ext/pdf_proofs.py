"""Sphinx extension for the sinpe book: theorems and proofs in the PDF as on the web.

* Numbers. sphinx-jupyterbook-latex turns the book's parts into LaTeX parts and, for
  the PDF build only, sets ``numfig_secnum_depth = 2`` so that LaTeX numbers figures
  and equations within chapters. sphinx-proof, however, numbers theorems from Sphinx's
  own figure numbers, which that setting makes count within *sections*: "Theorem 2.1.1"
  in the PDF for the web's "Theorem 2.1" (and sphinx-exercise's exercises likewise).
  :func:`web_proof_numbers` numbers them, and the references to them, as the web does.
* Proof boxes. A ``{prf:proof}`` is an admonition without a title, whose text
  sphinx-proof starts with "Proof. "; LaTeX's admonition box takes its first argument
  as the title, so every proof had an empty title bar. :class:`TitledProofs` gives the
  box the title "Proof" instead of the words "Proof. ".
* Folded outputs. A page can fold a cell's output until the reader asks for it (the
  answers of "Predict, then run"); paper cannot, and sphinx-jupyterbook-latex drops
  such outputs from the PDF, numbered figures included. :class:`PrintFoldedOutputs`
  prints them, after their question as on the web.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.environment.collectors.toctree import TocTreeCollector
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_proof.nodes import proof_node

#: The config value that keeps the web's ``numfig_secnum_depth`` for the PDF's theorems.
WEB_DEPTH = "sinpe_web_numfig_secnum_depth"
#: What LaTeX numbers itself in the PDF, by its own counters (per chapter there).
LATEX_COUNTERS = {"figure", "table", "code-block"}


def remember_web_depth(app, config) -> None:
    """The depth the HTML build numbers with (before sphinx-jupyterbook-latex changes it)."""
    if config[WEB_DEPTH] is None:
        config[WEB_DEPTH] = config.numfig_secnum_depth


def web_proof_numbers(app, env) -> list[str]:
    """In a LaTeX build, number theorems, exercises ... with the web's section depth.

    Runs after Sphinx's toctree collector has numbered every enumerable node with the
    LaTeX build's depth; figures, tables and equations are numbered by LaTeX itself in
    the PDF and stay as they are.
    """
    if app.builder.format != "latex" or env.config.numfig_secnum_depth == env.config[WEB_DEPTH]:
        return []
    latex_numbers, latex_depth = env.toc_fignumbers, env.config.numfig_secnum_depth
    env.config.numfig_secnum_depth = env.config[WEB_DEPTH]
    try:
        TocTreeCollector().assign_figure_numbers(env)
        web_numbers = env.toc_fignumbers
    finally:
        env.toc_fignumbers, env.config.numfig_secnum_depth = latex_numbers, latex_depth
    for docname, numbers in web_numbers.items():
        for kind in numbers.keys() - LATEX_COUNTERS:
            latex_numbers.setdefault(docname, {})[kind] = numbers[kind]
    return []


PREFIX = "Proof. "


class TitledProofs(SphinxPostTransform):
    """In the PDF, a proof's box is titled "Proof", and its text no longer says so."""

    default_priority = 5
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for proof in self.document.findall(proof_node):
            for box in proof.findall(nodes.admonition):
                if box.children and isinstance(box[0], nodes.title):
                    continue
                self._drop_prefix(box)
                box.insert(0, nodes.title("", "Proof"))

    @staticmethod
    def _drop_prefix(box: nodes.admonition) -> None:
        first = next(iter(box.findall(nodes.paragraph)), None)
        text = first[0] if first is not None and first.children else None
        if isinstance(text, nodes.Text) and text.astext().startswith(PREFIX):
            rest = text.astext()[len(PREFIX) :]
            if rest:
                first.replace(text, nodes.Text(rest))
            else:
                first.remove(text)


class PrintFoldedOutputs(SphinxPostTransform):
    """In the PDF, a cell's folded output is printed: its hide tag keeps only the input
    folded (run before sphinx-jupyterbook-latex's MystNbPostTransform, priority 400)."""

    default_priority = 390
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for cell in self.document.findall(nodes.container):
            classes = cell["classes"]
            if "tag_hide-output" in classes:
                classes.remove("tag_hide-output")
            if "tag_hide-cell" in classes:
                classes[classes.index("tag_hide-cell")] = "tag_hide-input"


def setup(app):
    app.setup_extension("sphinx_proof")
    app.add_config_value(WEB_DEPTH, None, "env", types=(int,))
    app.connect("config-inited", remember_web_depth)
    app.connect("env-get-updated", web_proof_numbers, priority=900)
    app.add_post_transform(TitledProofs)
    app.add_post_transform(PrintFoldedOutputs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
