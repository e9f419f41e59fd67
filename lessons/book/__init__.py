"""The machinery that builds the book's pages; a learner never needs to read it.

The chapters teach what is in the root of ``lessons``; this subpackage only serves
them: ``chapter`` (``setup`` and ``glue``: a reproducible chapter, numbers into the
prose), ``figures`` (the book's style, ``heatmap``, the statistical plots and
chapter figures), ``inline`` (how a notebook stores a figure), ``diagrams`` (the
chapters' drawn pictures), ``reading`` (chapter 13's notes on ``transformers``' own
code), and ``widgets`` (the in-page questions, the explorer,
chapter 11's lab and chapter 12's model: HTML, CSS and JavaScript that run with no
kernel). It imports the taught modules; they never import it.
"""

from . import chapter, diagrams, figures, inline, reading, widgets

__all__ = ["chapter", "diagrams", "figures", "inline", "reading", "widgets"]
