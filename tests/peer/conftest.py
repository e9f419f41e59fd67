"""The peer suite's three verdicts as pytest marks, so that ``-m agree`` counts them (see README)."""


def pytest_configure(config):
    for name, meaning in (
        ("agree", "lessons agrees with a peer's reference within the peer's tolerance"),
        ("refuse", "lessons refuses a peer's case with a ValueError that says why and what to do"),
        ("documented", "lessons differs from a peer as a chapter or docstring states"),
    ):
        config.addinivalue_line("markers", f"{name}: {meaning}")
