"""The self-checks' tests, one file per chapter, and the wrong answers each must reject."""
