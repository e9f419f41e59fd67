"""The book's in-page widgets: HTML, CSS and JavaScript that run with no kernel.

``widget`` (what every widget is made of), ``question`` (predict-then-check
questions), ``explorer`` (the attention explorer, chapters 4 to 7), ``lab``
(chapter 11's lab), ``lm_widget`` (chapter 12's model in the page). Their scripts
and styles are in ``assets/``, with the page contract the tests drive
(``assets/README.md``).
"""
