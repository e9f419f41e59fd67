"""The course's kit: the tools that build, check and teach from the book.

Run a tool as ``python -m kit VERB`` from the repository's root (``python -m kit`` lists the
verbs); the Makefile's targets call these. ``lessons`` is what the chapters import; ``kit``
is what works on the chapters and is never imported by a notebook.
"""
